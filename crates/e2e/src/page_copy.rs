//! The built page as one test deployment serves it: a copy of the bundle
//! `scripts/build-web.sh` left in `www/pkg/`, with that deployment's trust
//! policy written into it and the manifest listing it with its hash, as
//! `scripts/page-policy.sh` does for a real deployment. Each server gets
//! its own copy, so that a test's beacon or witnesses never leak into
//! another's page.

use crate::paths;
use eldorado_api::PagePolicy;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;
use tempfile::TempDir;

const MANIFEST: &str = "www/pkg/page-manifest.json";
const POLICY: &str = "www/pkg/page-policy.json";

#[derive(serde::Serialize, serde::Deserialize)]
struct Manifest {
    files: BTreeMap<String, String>,
}

/// A web root holding the built page and `policy`.
pub fn with_policy(policy: &PagePolicy) -> TempDir {
    paths::check_web_bundle();
    let built = paths::repo_root();
    let text = std::fs::read(built.join(MANIFEST)).expect("the built page's manifest");
    let mut manifest: Manifest = serde_json::from_slice(&text).expect("a page manifest");
    let root = tempfile::Builder::new()
        .prefix("eldorado-e2e-web-")
        .tempdir()
        .expect("a temporary web root");
    // A policy a developer's run left in the bundle is not this one's.
    manifest.files.retain(|path, _| !path.starts_with(POLICY));
    for path in manifest.files.keys() {
        copy(&built.join(path), &root.path().join(path));
    }
    let policy = serde_json::to_vec(policy).expect("a policy as JSON");
    write(&root.path().join(POLICY), &policy);
    manifest
        .files
        .insert(POLICY.to_owned(), hex::encode(Sha256::digest(&policy)));
    let manifest = serde_json::to_vec_pretty(&manifest).expect("a manifest as JSON");
    write(&root.path().join(MANIFEST), &manifest);
    root
}

fn copy(from: &Path, to: &Path) {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).expect("the copy's directories");
    }
    std::fs::copy(from, to)
        .unwrap_or_else(|e| panic!("cannot copy {} to {}: {e}", from.display(), to.display()));
}

fn write(path: &Path, bytes: &[u8]) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("the copy's directories");
    }
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}
