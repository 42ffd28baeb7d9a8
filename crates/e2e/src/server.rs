//! The real game server, `eldorado serve`, on a free loopback port with a
//! fresh data directory (and, for the game's tests, a fixed demo seed).

use crate::api::Api;
use crate::paths;
use crate::process::{free_port, ChildGuard};
use crate::POLL;
use std::fs::File;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// Generating the six first blocks (an open and a pending one per stake)
/// takes tens of seconds on two busy cores with a debug server.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(240);

pub struct Server {
    pub base: String,
    pub api: Api,
    pub log: PathBuf,
    // Dropped in this order: the process first, then its data directory.
    _child: ChildGuard,
    _data: TempDir,
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
    /// environment variables `env`, and waits until it answers.
    pub async fn start_with(
        tag: &str,
        flags: impl Fn(u16) -> Vec<String>,
        env: &[(&str, &str)],
    ) -> Server {
        let bin = paths::eldorado_bin();
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
            let mut command = Command::new(&bin);
            command
                .arg("serve")
                .arg("--addr")
                .arg(format!("127.0.0.1:{port}"))
                .arg("--data")
                .arg(data.path())
                .arg("--web")
                .arg(paths::repo_root())
                .args(flags(port))
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
                        return Server {
                            base,
                            api,
                            log,
                            _child: child,
                            _data: data,
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
}
