//! The processes beside a server that deals by a beacon, for the CLI's
//! tests: `eldorado beacon` and `eldorado witness`, each killed with its
//! guard.

use eldorado_engine::commit::signing_key_from_secret;
use eldorado_engine::transparency::Cosigner;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A child killed (and reaped) when dropped, also on a failed assertion.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _already_dead = self.0.kill();
        let _reaped = self.0.wait();
    }
}

/// `eldorado beacon` with 200 ms rounds on `listen` (`127.0.0.1:0` for any
/// port), its key in `key_file` (created once): the process, its URL and
/// its key, read from the two lines it prints first.
pub fn beacon(key_file: &Path, listen: &str) -> (Killed, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["beacon", "--key-file"])
        .arg(key_file)
        .args(["--period-ms", "200", "--listen", listen])
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the beacon starts");
    let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
    let mut line = || lines.next().expect("a line").expect("text");
    let key = line()
        .strip_prefix("beacon key: ")
        .expect("the key first")
        .to_owned();
    let url = line()
        .strip_prefix("beacon listening on ")
        .expect("then where it listens")
        .to_owned();
    (Killed(child), url, key)
}

/// The cosignature verifier key of the witness [`witness`] starts with
/// `secret`.
pub fn witness_vkey(secret: [u8; 32]) -> String {
    Cosigner::new("witness.test", signing_key_from_secret(secret))
        .expect("a valid name")
        .witness_key()
        .vkey()
}

/// `eldorado witness` of the log at `log_url`, polling every 100 ms, its
/// key `secret` and its state in `dir` (kept across restarts of the log).
pub fn witness(dir: &Path, log_url: &str, secret: [u8; 32]) -> Killed {
    witness_at(dir, log_url, secret, None, 100)
}

/// [`witness`], polling every `poll_ms`, and serving its status, its
/// publication and pushes on `listen` if given.
pub fn witness_at(
    dir: &Path,
    log_url: &str,
    secret: [u8; 32],
    listen: Option<&str>,
    poll_ms: u64,
) -> Killed {
    let key_file = dir.join("witness.key");
    if !key_file.exists() {
        std::fs::write(&key_file, hex::encode(secret)).unwrap();
        #[cfg(unix)]
        std::fs::set_permissions(
            &key_file,
            std::os::unix::fs::PermissionsExt::from_mode(0o600),
        )
        .unwrap();
    }
    let child = Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["witness", "--log", log_url, "--key-file"])
        .arg(&key_file)
        .arg("--state")
        .arg(dir.join("witness-state"))
        .args(["--name", "witness.test", "--poll-ms", &poll_ms.to_string()])
        .args(listen.map(|addr| ["--listen", addr]).into_iter().flatten())
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the witness starts");
    Killed(child)
}
