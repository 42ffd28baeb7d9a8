//! The page a deployment serves, as the public record names it: one record
//! per build the servers started with, holding the build's fingerprint, so
//! that anyone who fetches the served page can tell whether it is the one
//! on the record (docs/PROTOCOL.md §9, "The page on the record").
//!
//! The fingerprint is SHA-256 of the build's listing, the lines that
//! `sha256sum` prints for the served files, sorted by path (byte order):
//! `<64 lower-case hex digits of the file's SHA-256>  <path>\n`.

use crate::commit::{verify_with, ByteReader, SignatureError};
use crate::fixed_bytes::{to_hex, SignatureBytes};
use crate::Hash;
use ed25519_dalek::{Signer, SigningKey, VerifyingKey};
use sha2::{Digest, Sha256};

/// Domain tag of a page record's signed bytes.
pub const PAGE_TAG: &[u8] = b"ELDORADO-PAGE-V1";

/// A build of the page, as logged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageBuild {
    /// When a server first started with this build.
    pub published_at_ms: u64,
    /// How many files the build serves.
    pub files: u32,
    /// SHA-256 of the build's listing ([`page_fingerprint`]).
    pub fingerprint: Hash,
}

impl PageBuild {
    pub fn canonical_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(PAGE_TAG.len() + 44);
        bytes.extend_from_slice(PAGE_TAG);
        bytes.extend_from_slice(&self.published_at_ms.to_be_bytes());
        bytes.extend_from_slice(&self.files.to_be_bytes());
        bytes.extend_from_slice(&self.fingerprint.0);
        bytes
    }

    /// Reads [`PageBuild::canonical_bytes`] back; `None` unless `bytes` is
    /// exactly one page record.
    pub fn parse(bytes: &[u8]) -> Option<PageBuild> {
        let mut r = ByteReader(bytes.strip_prefix(PAGE_TAG)?);
        let page = PageBuild {
            published_at_ms: r.u64()?,
            files: r.u32()?,
            fingerprint: Hash(r.array()?),
        };
        r.0.is_empty().then_some(page)
    }

    pub fn sign(&self, key: &SigningKey) -> SignatureBytes {
        SignatureBytes(key.sign(&self.canonical_bytes()).to_bytes())
    }

    pub fn verify(
        &self,
        operator: &VerifyingKey,
        signature: &SignatureBytes,
    ) -> Result<(), SignatureError> {
        verify_with(operator, &self.canonical_bytes(), signature)
    }
}

/// The fingerprint of a build serving `files` (each path, as served under
/// the web root, with the SHA-256 of its bytes), in any order.
pub fn page_fingerprint<'a>(files: impl IntoIterator<Item = (&'a str, &'a Hash)>) -> Hash {
    let mut files: Vec<_> = files.into_iter().collect();
    files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut listing = Sha256::new();
    for (path, hash) in files {
        listing.update(to_hex(&hash.0));
        listing.update(b"  ");
        listing.update(path.as_bytes());
        listing.update(b"\n");
    }
    Hash(listing.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commit::{public_key_of, signing_key_from_secret, verifying_key};

    #[test]
    fn a_page_record_reads_back_and_verifies() {
        let page = PageBuild {
            published_at_ms: 1_800_000_000_000,
            files: 21,
            fingerprint: Hash([7; 32]),
        };
        let bytes = page.canonical_bytes();
        assert_eq!(bytes.len(), PAGE_TAG.len() + 44);
        assert_eq!(PageBuild::parse(&bytes), Some(page.clone()));
        assert_eq!(PageBuild::parse(&bytes[..bytes.len() - 1]), None);
        let key = signing_key_from_secret([3; 32]);
        let operator = verifying_key(&public_key_of(&key)).unwrap();
        let signature = page.sign(&key);
        assert!(page.verify(&operator, &signature).is_ok());
        let other = PageBuild { files: 22, ..page };
        assert!(other.verify(&operator, &signature).is_err());
    }

    #[test]
    fn the_fingerprint_is_sha256sums_sorted_listing() {
        let a = Hash(Sha256::digest(b"a").into());
        let b = Hash(Sha256::digest(b"b").into());
        // printf a >www/a; printf b >www/B; sha256sum www/B www/a | LC_ALL=C sort -k2 | sha256sum
        let listing = format!("{}  www/B\n{}  www/a\n", hex::encode(b.0), hex::encode(a.0));
        let expected = Hash(Sha256::digest(listing.as_bytes()).into());
        assert_eq!(page_fingerprint([("www/a", &a), ("www/B", &b)]), expected);
        // docs/PROTOCOL.md §9's example, as `sha256sum` gives it.
        assert_eq!(
            to_hex(&expected.0),
            "fb5feaa94ed927ecd334675bcdce646e2c441f095b683adc2a17c09959cdcae1"
        );
        assert_eq!(page_fingerprint([("www/B", &b), ("www/a", &a)]), expected);
        assert_ne!(page_fingerprint([("www/a", &b), ("www/B", &a)]), expected);
    }
}
