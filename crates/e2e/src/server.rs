//! The real game server, `eldorado serve`, on a free loopback port with a
//! fresh data directory (and, for the game's tests, a fixed demo seed),
//! with a real witness of its public record, `eldorado witness`, beside it:
//! the page buys only from blocks proved on a cosigned checkpoint.

use crate::api::Api;
use crate::page_copy;
use crate::paths;
use crate::process::{free_port, ChildGuard};
use crate::POLL;
use eldorado_api::{BeaconPin, PagePolicy};
use eldorado_engine::commit::signing_key_from_secret;
use eldorado_engine::transparency::Cosigner;
use eldorado_engine::SigningKey;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// Generating the six first blocks (an open and a pending one per stake)
/// takes tens of seconds on two busy cores with a debug server.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(240);

/// The witness's name and secret (test use only: the tests that forge a
/// cosigned checkpoint sign with it, as a witness colluding would).
pub const WITNESS_NAME: &str = "e2e-witness";
pub const WITNESS_SECRET: [u8; 32] = [0x42; 32];

/// The page's policy for a server witnessed by [`witness`] alone, dealing
/// by `beacon` (or in order).
pub fn page_policy(beacon: Option<BeaconPin>) -> PagePolicy {
    PagePolicy {
        witnesses: vec![witness().witness_key().vkey()],
        quorum: 1,
        beacon,
    }
}

/// The witness of every server started here.
pub fn witness() -> Cosigner {
    Cosigner::new(WITNESS_NAME, signing_key_from_secret(WITNESS_SECRET)).expect("a valid name")
}

pub struct Server {
    pub base: String,
    pub api: Api,
    pub log: PathBuf,
    // Dropped in this order: the witness, the server, then its data directory.
    _witness: ChildGuard,
    _child: ChildGuard,
    _data: TempDir,
    _web: TempDir,
}

impl Server {
    /// Starts `eldorado serve --demo --demo-seed SEED` and waits until it answers.
    /// `tag` names its log file in the output directory.
    pub async fn start(seed: u64, tag: &str) -> Server {
        let flags = vec![
            "--demo".to_owned(),
            "--demo-seed".to_owned(),
            seed.to_string(),
        ];
        Server::start_with(tag, |_| flags.clone(), &[]).await
    }

    /// Starts `eldorado serve` with the flags `flags(port)` gives for the
    /// port it listens on (besides `--addr`, `--data` and `--web`) and the
    /// environment variables `env`, and waits until it answers. Its page's
    /// policy trusts this module's witness alone and deals in order.
    pub async fn start_with(
        tag: &str,
        flags: impl Fn(u16) -> Vec<String>,
        env: &[(&str, &str)],
    ) -> Server {
        Server::start_with_policy(tag, flags, env, &page_policy(None)).await
    }

    /// As [`Server::start_with`], its page built with `policy`.
    pub async fn start_with_policy(
        tag: &str,
        flags: impl Fn(u16) -> Vec<String>,
        env: &[(&str, &str)],
        policy: &PagePolicy,
    ) -> Server {
        let bin = paths::eldorado_bin();
        let web = page_copy::with_policy(policy);
        let log = paths::out_dir().join(format!("server-{tag}.log"));
        // A port can be taken between our probe and the server's bind:
        // a server that exits at once is started again on another port.
        for _ in 0..3 {
            let data = tempfile::Builder::new()
                .prefix("eldorado-e2e-")
                .tempdir()
                .expect("temporary data directory");
            let port = free_port();
            let base = format!("http://127.0.0.1:{port}");
            let stderr = File::create(&log)
                .unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
            let key_file = data.path().join("witness.key");
            write_secret(&key_file, &WITNESS_SECRET);
            let mut command = Command::new(&bin);
            command
                .arg("serve")
                .arg("--addr")
                .arg(format!("127.0.0.1:{port}"))
                .arg("--data")
                .arg(data.path())
                .arg("--web")
                .arg(web.path())
                .args(flags(port))
                .args(["--witness", &witness().witness_key().vkey()])
                .args(["--checkpoint-interval-ms", "100"])
                .envs(env.iter().copied())
                .env("RUST_LOG", "info")
                .env("NO_COLOR", "1")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(stderr);
            let mut child = ChildGuard::spawn("eldorado serve", command);
            let api = Api::new(&base);
            let started = Instant::now();
            loop {
                if let Some(status) = child.exited() {
                    let text = std::fs::read_to_string(&log).unwrap_or_default();
                    if text.contains("cannot listen") {
                        break;
                    }
                    panic!("eldorado serve exited with {status}:\n{text}");
                }
                if let Ok((status, _)) = api.get_raw("/api/config", None).await {
                    if status.is_success() {
                        let witness = start_witness(&base, tag, &key_file, data.path()).await;
                        return Server {
                            base,
                            api,
                            log,
                            _witness: witness,
                            _child: child,
                            _data: data,
                            _web: web,
                        };
                    }
                }
                assert!(
                    started.elapsed() < STARTUP_TIMEOUT,
                    "eldorado serve did not answer within {STARTUP_TIMEOUT:?}; log: {}",
                    log.display()
                );
                tokio::time::sleep(POLL * 5).await;
            }
        }
        panic!(
            "eldorado serve could not bind a free port three times; log: {}",
            log.display()
        );
    }

    /// The data directory (the operator's signing key is in it).
    pub fn data_dir(&self) -> &Path {
        self._data.path()
    }

    /// The operator's signing key, read from the data directory: the tests
    /// that play a dishonest operator sign with it.
    pub fn operator_key(&self) -> SigningKey {
        let text = std::fs::read_to_string(self.data_dir().join("operator-ed25519.key"))
            .expect("the operator's key file");
        signing_key_from_secret(parse_secret(text.trim()))
    }
}

fn write_secret(path: &Path, secret: &[u8; 32]) {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    file.write_all(eldorado_engine::fixed_bytes::to_hex(secret).as_bytes())
        .expect("write the witness key");
}

fn parse_secret(text: &str) -> [u8; 32] {
    let mut secret = [0u8; 32];
    assert_eq!(text.len(), 64, "a 64-hex-digit secret");
    for (i, byte) in secret.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).expect("hex digits");
    }
    secret
}

/// Starts `eldorado witness` on the server at `base` (polling every 100 ms)
/// and waits until the server serves a checkpoint it cosigned.
async fn start_witness(base: &str, tag: &str, key_file: &Path, data: &Path) -> ChildGuard {
    let log = paths::out_dir().join(format!("witness-{tag}.log"));
    let stderr =
        File::create(&log).unwrap_or_else(|e| panic!("cannot create {}: {e}", log.display()));
    let mut command = Command::new(paths::eldorado_bin());
    command
        .arg("witness")
        .args(["--log", base])
        .arg("--key-file")
        .arg(key_file)
        .arg("--state")
        .arg(data.join("witness-state"))
        .args(["--name", WITNESS_NAME, "--poll-ms", "100"])
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr);
    let mut child = ChildGuard::spawn("eldorado witness", command);
    let api = Api::new(base);
    let started = Instant::now();
    loop {
        if let Some(status) = child.exited() {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            panic!("eldorado witness exited with {status}:\n{text}");
        }
        if let Ok((status, _)) = api.get_raw("/api/log/checkpoint", None).await {
            if status.is_success() {
                return child;
            }
        }
        assert!(
            started.elapsed() < WITNESS_TIMEOUT,
            "no cosigned checkpoint within {WITNESS_TIMEOUT:?}; witness log: {}",
            log.display()
        );
        tokio::time::sleep(POLL * 5).await;
    }
}

/// The sequencer logs within 100 ms, the witness cosigns within 100 ms more.
const WITNESS_TIMEOUT: Duration = Duration::from_secs(60);
