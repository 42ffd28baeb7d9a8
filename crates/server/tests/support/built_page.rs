//! A built page for the tests: files written under a web root and listed,
//! with their SHA-256, in the manifest the server reads at start (as
//! `scripts/page-manifest.sh` writes it for the real build).

use sha2::{Digest, Sha256};
use std::path::Path;

/// Writes each `(path under the web root, content)` and a manifest that
/// lists them all.
pub fn write_built_page(web: &Path, files: &[(&str, &[u8])]) {
    let mut listed = serde_json::Map::new();
    for (path, content) in files {
        let file = web.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, content).unwrap();
        listed.insert(
            (*path).to_owned(),
            hex::encode(Sha256::digest(content)).into(),
        );
    }
    let manifest = serde_json::json!({ "files": listed });
    std::fs::write(
        web.join(eldorado_server::built_page::MANIFEST),
        serde_json::to_vec_pretty(&manifest).unwrap(),
    )
    .unwrap();
}
