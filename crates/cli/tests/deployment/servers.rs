//! Starting, waiting for and killing the servers of a test deployment.

use crate::client::Http;
use crate::test_database::TestDatabase;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The operator API key of every server of a test deployment: shared by
/// configuration, as in production.
pub const API_KEY: &str = "deployment-test-operator-key-0123456789abcdef";

/// Longest wait for a server to answer: its first start generates blocks.
const READY_WITHIN: Duration = Duration::from_secs(180);

pub struct Server {
    pub addr: SocketAddr,
    child: Option<Child>,
    log: PathBuf,
}

impl Server {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// SIGKILL: the server gets no chance to finish anything.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().expect("SIGKILL the server");
            child.wait().expect("reap the server");
        }
    }

    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

pub struct Deployment {
    // Declared before the database: the servers stop before it is dropped.
    pub servers: Vec<Server>,
    _dir: tempfile::TempDir,
    /// The database URL every server was given.
    pub url: String,
    _database: Option<TestDatabase>,
}

impl Deployment {
    /// `count` servers on one fresh database, or `None` without PostgreSQL.
    pub fn start(count: usize) -> Option<Deployment> {
        Deployment::start_with(count, &[])
    }

    /// [`Deployment::start`], each server also given `flags`.
    pub fn start_with(count: usize, flags: &[String]) -> Option<Deployment> {
        let database = TestDatabase::create()?;
        let url = database.url.clone();
        Some(Deployment::on_with(count, url, Some(database), flags))
    }

    fn on_with(
        count: usize,
        url: String,
        database: Option<TestDatabase>,
        flags: &[String],
    ) -> Deployment {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let servers = (0..count)
            .map(|i| {
                let data = dir.path().join(format!("server-{i}"));
                std::fs::create_dir_all(&data).unwrap();
                let addr = free_port();
                let log = data.join("server.log");
                let child = Command::new(env!("CARGO_BIN_EXE_eldorado"))
                    .arg("serve")
                    .args(["--addr", &addr.to_string()])
                    .arg("--data")
                    .arg(&data)
                    .arg("--web")
                    .arg(&data)
                    .args(["--database", &url])
                    .args(["--pool-size", "6", "--block-poll-ms", "200"])
                    // Every test client comes from 127.0.0.1: lift the
                    // per-address limits, which are not what is tested.
                    .args(["--demo-players-per-minute", "100000"])
                    .args(["--sales-per-second", "100000"])
                    .args(flags)
                    .env("ELDORADO_OPERATOR_API_KEY", API_KEY)
                    .env("RUST_LOG", "warn")
                    .stdout(Stdio::null())
                    .stderr(std::fs::File::create(&log).unwrap())
                    .spawn()
                    .expect("eldorado serve starts");
                Server {
                    addr,
                    child: Some(child),
                    log,
                }
            })
            .collect();
        Deployment {
            servers,
            _dir: dir,
            url,
            _database: database,
        }
    }

    /// Every server's base URL, in order, to share among the clients.
    pub fn urls(&self) -> std::sync::Arc<Vec<String>> {
        std::sync::Arc::new(self.servers.iter().map(|s| s.url("")).collect())
    }

    /// Waits until every server answers `/api/config`.
    pub async fn wait_ready(&mut self, http: &Http) {
        let started = Instant::now();
        for server in &mut self.servers {
            loop {
                if http.get(&server.url("/api/config"), None).await.is_ok() {
                    break;
                }
                if let Some(status) = server.child.as_mut().and_then(|c| c.try_wait().unwrap()) {
                    panic!(
                        "server {} exited ({status}):\n{}",
                        server.addr,
                        server.log_tail()
                    );
                }
                assert!(
                    started.elapsed() < READY_WITHIN,
                    "server {} not ready:\n{}",
                    server.addr,
                    server.log_tail()
                );
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }

    /// The index of the one live server that runs the public log's
    /// sequencer on its interval, once exactly one says so on `/metrics`
    /// (each says it at every interval; one that died let go of the lease).
    pub async fn sequencer(&self, http: &Http) -> usize {
        let started = Instant::now();
        loop {
            let mut holders = Vec::new();
            for (i, server) in self.servers.iter().enumerate() {
                if server.child.is_none() {
                    continue;
                }
                let scrape = http.metrics(&server.url("")).await.unwrap_or_default();
                if scrape
                    .lines()
                    .any(|l| l == "eldorado_sequencing_lease_held 1")
                {
                    holders.push(i);
                }
            }
            if let [one] = holders[..] {
                return one;
            }
            assert!(
                started.elapsed() < READY_WITHIN,
                "no single sequencer: {holders:?} hold the lease"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A direct connection to the deployment's database, for assertions.
    pub fn sql(&self) -> postgres::Client {
        postgres::Client::connect(&self.url, postgres::NoTls).expect("connects")
    }
}

fn free_port() -> SocketAddr {
    // Bound then released: the server binds it a moment later.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap()
}
