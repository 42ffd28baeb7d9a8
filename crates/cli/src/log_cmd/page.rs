//! The page as served against the page on the record (docs/PROTOCOL.md
//! §9, "The page on the record"): the server's listing must be the build
//! the log's newest page record names, and every file, as a browser gets
//! it (plain, brotli or gzip, and `/` for the page), must be the listed
//! bytes. A page changed for everyone after it was logged, or never
//! logged, is a finding.

use super::client::LogClient;
use super::ledger::Ledger;
use eldorado_api::PageListing;
use eldorado_engine::transparency::page_fingerprint;
use eldorado_engine::Hash;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Read;

/// The page the server serves: `www/pkg/index.html`, also served at `/`.
const INDEX: &str = "www/pkg/index.html";
/// What a browser may be sent for a file, by the `Accept-Encoding` it asks
/// with: the file itself, or its listed precompressed form.
const CODINGS: [(&str, &str); 3] = [("identity", ""), ("br", ".br"), ("gzip", ".gz")];

pub fn check_served_page(client: &LogClient, ledger: &Ledger) -> Result<Vec<String>, String> {
    let Some(text) = client.get_text_unless("/api/log/page", reqwest::StatusCode::NOT_FOUND)?
    else {
        tracing::info!("the server serves no page");
        return Ok(Vec::new());
    };
    let listing: PageListing = super::client::parse_json("/api/log/page", &text)?;
    let mut findings = Vec::new();
    let mut files = BTreeMap::new();
    for (path, hex) in &listing.files {
        match parse_hash(hex) {
            Some(hash) => {
                files.insert(path.as_str(), hash);
            }
            None => findings.push(format!(
                "the page's listing gives {path} no SHA-256: {hex:?}"
            )),
        }
    }
    let fingerprint = page_fingerprint(files.iter().map(|(path, hash)| (*path, hash)));
    let fingerprint_hex = hex::encode(fingerprint.0);
    if !listing.fingerprint.eq_ignore_ascii_case(&fingerprint_hex) {
        findings.push(format!(
            "the page's listing says fingerprint {}, its files' hashes give {fingerprint_hex}",
            listing.fingerprint
        ));
    }
    match &ledger.newest_page {
        None => findings.push(format!(
            "the server serves a page (fingerprint {fingerprint_hex}) that no record of the log names"
        )),
        Some((record, page)) if page.fingerprint != fingerprint => findings.push(format!(
            "the page served (fingerprint {fingerprint_hex}) is not the one the log names last (record {record}, fingerprint {})",
            hex::encode(page.fingerprint.0)
        )),
        Some((record, page)) if page.files as usize != files.len() => findings.push(format!(
            "the page served has {} files, the log's record {record} says {}",
            files.len(),
            page.files
        )),
        Some(_) => {}
    }
    for (path, listed) in &files {
        findings.extend(check_file(client, &files, path, listed)?);
    }
    tracing::info!(files = files.len(), fingerprint = %fingerprint_hex, "the served page is checked");
    Ok(findings)
}

/// `path` as served for each coding a browser may ask for.
fn check_file(
    client: &LogClient,
    files: &BTreeMap<&str, Hash>,
    path: &str,
    listed: &Hash,
) -> Result<Vec<String>, String> {
    let mut findings = Vec::new();
    let is_variant = path.ends_with(".br") || path.ends_with(".gz");
    let codings: &[(&str, &str)] = if is_variant { &CODINGS[..1] } else { &CODINGS };
    let mut urls = vec![format!("/{path}")];
    if path == INDEX {
        urls.push("/".to_owned());
    }
    for url in &urls {
        for (accept, suffix) in codings {
            let variant = files.get(format!("{path}{suffix}").as_str());
            let expected = variant.unwrap_or(listed);
            let (bytes, encoding) = client.get_bytes_encoded(url, accept)?;
            // A built variant is served as built; a file without one is
            // compressed as it is served, and is the listed file decoded.
            let bytes = match (variant, encoding.as_deref()) {
                (None, Some(coding)) => decoded(&bytes, coding)
                    .map_err(|e| format!("{url} as served for {accept}: {e}"))?,
                _ => bytes,
            };
            let actual = Hash(Sha256::digest(&bytes).into());
            if actual != *expected {
                findings.push(format!(
                    "{url} as served for Accept-Encoding {accept} has SHA-256 {}, the page's listing says {}",
                    hex::encode(actual.0),
                    hex::encode(expected.0)
                ));
            }
        }
    }
    Ok(findings)
}

/// `bytes` served with `Content-Encoding: coding`, decoded.
fn decoded(bytes: &[u8], coding: &str) -> Result<Vec<u8>, String> {
    let mut plain = Vec::new();
    let read = match coding {
        "gzip" => flate2::read::GzDecoder::new(bytes).read_to_end(&mut plain),
        "br" => brotli::Decompressor::new(bytes, 4096).read_to_end(&mut plain),
        "identity" => return Ok(bytes.to_vec()),
        other => return Err(format!("served with an unknown Content-Encoding {other:?}")),
    };
    read.map_err(|e| format!("does not decode as {coding}: {e}"))?;
    Ok(plain)
}

fn parse_hash(hex_text: &str) -> Option<Hash> {
    let bytes = hex::decode(hex_text).ok()?;
    Some(Hash(bytes.try_into().ok()?))
}
