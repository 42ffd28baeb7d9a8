//! Failover that needs no one: `scripts/cluster.sh` (pg_auto_failover's
//! monitor and three PostgreSQL nodes, three servers, nginx) under
//! continuous 64-way sales through the balancer. The primary is killed,
//! the monitor promotes a standby; the new primary is killed, the monitor
//! promotes the last node; then a game server is killed. Nobody touches
//! anything in between: every acknowledged sale is in the database once,
//! no ticket is sold twice, money is conserved to the cent, and sales stop
//! for at most [`LONGEST_PAUSE`] at each failover.
//! Needs root, pg_auto_failover and nginx (scripts/setup.sh --test installs
//! them) besides `ELDORADO_TEST_POSTGRES`; else it says SKIPPED.

use crate::client::Http;
use crate::servers::API_KEY;
use eldorado_engine::SignedSale;
use reqwest::StatusCode;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const CLIENTS: usize = 64;
const START_CENTS: u64 = 100_000;
/// Sales acknowledged between two drills: proof that sales flow again.
const BETWEEN_DRILLS: usize = 150;
/// Longest a drill may leave the deployment without a sale.
const LONGEST_PAUSE: Duration = Duration::from_secs(30);
/// Longest wait for sales to flow again after a drill, before failing.
const RECOVERY_WITHIN: Duration = Duration::from_secs(120);

/// What one acknowledged sale was: (sale id, block, position, stake, prize).
type Sale = (i64, i64, i64, i64, i64);

/// The deployment of `scripts/cluster.sh`, in a directory of its own on
/// ports of its own; destroyed with the guard.
struct Cluster {
    dir: tempfile::TempDir,
    env: Vec<(&'static str, String)>,
    balancer: String,
    monitor_port: u16,
    node_ports: Vec<u16>,
}

impl Cluster {
    fn script(&self, args: &[&str]) -> std::process::Output {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/cluster.sh");
        Command::new(script)
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .output()
            .expect("scripts/cluster.sh runs")
    }

    /// Runs a `scripts/cluster.sh` command that must succeed.
    fn run(&self, args: &[&str]) -> String {
        let out = self.script(args);
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "cluster.sh {args:?}:\n{said}");
        said
    }

    /// Waits until the monitor has a primary with a standby in sync again
    /// (state `primary`, not `wait_primary`): only then can it promote
    /// without losing a sale, so only then is the next drill fair.
    fn wait_for_a_synchronous_standby(&self) {
        let port = self.monitor_port.to_string();
        let deadline = Instant::now() + RECOVERY_WITHIN;
        loop {
            let out = Command::new("runuser")
                .args([
                    "-u",
                    "postgres",
                    "--",
                    "psql",
                    "-p",
                    &port,
                    "-d",
                    "pg_auto_failover",
                ])
                .args([
                    "-AtXc",
                    "SELECT count(*) FROM pgautofailover.node \
                     WHERE reportedstate = 'primary' AND goalstate = 'primary'",
                ])
                .output()
                .expect("psql runs");
            if out.stdout == b"1\n" {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "no standby in sync again: {}",
                self.run(&["status"])
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The servers' own database URL (every node, the writable one chosen).
    fn database_url(&self) -> String {
        let password = std::fs::read_to_string(self.path("state/db-password")).unwrap();
        let hosts: Vec<String> = self
            .node_ports
            .iter()
            .map(|p| format!("127.0.0.1:{p}"))
            .collect();
        format!(
            "postgres://eldorado:{}@{}/eldorado?target_session_attrs=read-write",
            password.trim(),
            hosts.join(",")
        )
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.script(&["destroy"]);
    }
}

/// `n` ports free now and different from each other: all held at once
/// while they are picked (one dropped at once may be handed out again, as
/// it was once to a node and to nginx).
fn free_ports(n: usize) -> Vec<u16> {
    let held: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    held.iter()
        .map(|l| l.local_addr().unwrap().port())
        .collect()
}

fn skip(why: &str) -> Option<Cluster> {
    let _ = writeln!(std::io::stderr(), "SKIPPED failover test: {why}");
    None
}

/// A started deployment, or `None` (said) where this
/// machine cannot run one.
fn start_cluster() -> Option<Cluster> {
    if std::env::var(crate::test_database::ENV).is_err() {
        return skip("$ELDORADO_TEST_POSTGRES is not set (scripts/test.sh sets it)");
    }
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout == b"0\n");
    if !matches!(is_root, Ok(true)) {
        return skip("needs root");
    }
    for tool in ["pg_autoctl", "nginx"] {
        if Command::new(tool).arg("--version").output().is_err() {
            return skip(&format!(
                "{tool} is not installed (scripts/setup.sh --test)"
            ));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    // The postgres user reaches its data directory through this one.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    std::fs::create_dir_all(dir.path().join("web")).unwrap();
    // The key the test clients use, taken by the script as its own.
    std::fs::write(state.join("operator-api-key"), API_KEY).unwrap();
    let ports = free_ports(8);
    let node_ports: Vec<u16> = ports[..3].to_vec();
    let monitor_port = ports[3];
    let servers: Vec<String> = ports[4..7].iter().map(u16::to_string).collect();
    let balancer = format!("127.0.0.1:{}", ports[7]);
    let list = |ports: &[String]| ports.join(" ");
    let env = vec![
        ("ELDORADO_BIN", env!("CARGO_BIN_EXE_eldorado").to_owned()),
        ("ELDORADO_CLUSTER_DIR", state.display().to_string()),
        (
            "ELDORADO_CLUSTER_PGDATA",
            dir.path().join("postgres").display().to_string(),
        ),
        ("ELDORADO_CLUSTER_MONITOR_PORT", monitor_port.to_string()),
        (
            "ELDORADO_CLUSTER_NODE_PORTS",
            list(&node_ports.iter().map(u16::to_string).collect::<Vec<_>>()),
        ),
        ("ELDORADO_CLUSTER_SERVER_PORTS", list(&servers)),
        ("ELDORADO_CLUSTER_LISTEN", balancer.clone()),
        (
            "ELDORADO_CLUSTER_WEB",
            dir.path().join("web").display().to_string(),
        ),
        // Real money, as in production: the clients are operator players.
        ("ELDORADO_CLUSTER_DEMO", "0".to_owned()),
        // Every test client comes from 127.0.0.1, and each sells as fast as
        // it can: the limits are not what is tested.
        (
            "ELDORADO_CLUSTER_SERVER_FLAGS",
            "--pool-size 6 --block-poll-ms 200 --sales-per-second 100000".to_owned(),
        ),
    ];
    let cluster = Cluster {
        dir,
        env,
        balancer: format!("http://{balancer}"),
        monitor_port,
        node_ports,
    };
    cluster.run(&["start"]);
    Some(cluster)
}

/// Shared by the clients: every acknowledgement's time, and a stop flag.
struct Load {
    acknowledged: AtomicUsize,
    times: Mutex<Vec<Instant>>,
    stop: AtomicBool,
}

impl Load {
    async fn wait_for_more(&self, count: usize, drill: &str) {
        let target = self.acknowledged.load(Ordering::SeqCst) + count;
        let deadline = Instant::now() + RECOVERY_WITHIN;
        while self.acknowledged.load(Ordering::SeqCst) < target {
            assert!(
                Instant::now() < deadline,
                "{drill}: sales did not resume within {RECOVERY_WITHIN:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The longest time without an acknowledged sale around `at`.
    fn pause_around(&self, at: Instant) -> Duration {
        let mut times = self.times.lock().unwrap().clone();
        times.sort();
        let after = times.partition_point(|t| *t <= at);
        let before = times[..after].last().copied().unwrap_or(at);
        let mut longest = times.get(after).map_or(Duration::MAX, |t| *t - before);
        // Sales may have stalled a little later than the kill.
        for pair in times[after..].windows(2) {
            longest = longest.max(pair[1] - pair[0]);
        }
        longest
    }
}

/// One player selling until told to stop, every sale retried with its
/// idempotency key until acknowledged.
async fn client(
    http: Http,
    base: String,
    c: usize,
    load: Arc<Load>,
) -> (String, HashMap<String, Sale>) {
    let player = format!("failover-{c:02}");
    let token = http.operator_player(&base, &player, START_CENTS).await;
    let mut sold = HashMap::new();
    let mut j = 0;
    while !load.stop.load(Ordering::SeqCst) {
        let key = format!("{player}-play-{j:05}");
        let stake = [50, 100, 200][(c + j) % 3];
        let body = format!(r#"{{"stake_cents":{stake},"idempotency_key":"{key}"}}"#);
        let started = Instant::now();
        let reply = loop {
            assert!(
                started.elapsed() < RECOVERY_WITHIN,
                "{player}: {key} never acknowledged"
            );
            match http
                .post(&format!("{base}/api/sales"), Some(&token), &body)
                .await
            {
                Ok((StatusCode::OK, reply)) => break reply,
                Ok((status, reply)) if status.is_client_error() => {
                    panic!("{player}: {status}: {reply}")
                }
                // A failover or a killed server: the same key again.
                Ok(_) | Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            }
        };
        let sale: SignedSale = serde_json::from_value(reply["sale"].clone()).unwrap();
        let s = &sale.sale;
        let ticket = (
            s.sale_id as i64,
            s.block as i64,
            i64::from(s.ticket.position),
            stake as i64,
            s.ticket.prize_cents as i64,
        );
        sold.insert(key, ticket);
        load.times.lock().unwrap().push(Instant::now());
        load.acknowledged.fetch_add(1, Ordering::SeqCst);
        j += 1;
    }
    (player, sold)
}

// A plain test driving its own runtime: the database checks use the
// blocking `postgres` client, and the drills run the script.
#[test]
fn two_primaries_and_a_server_lost_under_load_lose_no_sale() {
    let _machine = crate::machine_shared();
    let Some(cluster) = start_cluster() else {
        return;
    };
    let cluster = Arc::new(cluster);
    let runtime = crate::runtime();
    let http = Http::new();
    let load = Arc::new(Load {
        acknowledged: AtomicUsize::new(0),
        times: Mutex::new(Vec::new()),
        stop: AtomicBool::new(false),
    });
    let results = runtime.block_on(async {
        let tasks: Vec<_> = (0..CLIENTS)
            .map(|c| {
                let base = cluster.balancer.clone();
                tokio::spawn(client(http.clone(), base, c, Arc::clone(&load)))
            })
            .collect();
        load.wait_for_more(BETWEEN_DRILLS, "start").await;
        let mut pauses = Vec::new();
        // After the first failover the monitor makes the third node a
        // standby of the new primary; the second drill waits for it to be
        // in sync, as no manager could promote a standby that lacks sales.
        let drills: [(&[&str], bool); 3] = [
            (&["kill-primary"], true),
            (&["kill-primary"], false),
            (&["kill-server", "2"], false),
        ];
        for (drill, then_wait_for_a_standby) in drills {
            let at = Instant::now();
            let said = {
                let cluster = Arc::clone(&cluster);
                tokio::task::spawn_blocking(move || cluster.run(drill))
                    .await
                    .unwrap()
            };
            load.wait_for_more(BETWEEN_DRILLS, &said).await;
            let pause = load.pause_around(at);
            let _ = writeln!(
                std::io::stderr(),
                "{drill:?}: longest stretch without a sale {pause:?} ({})",
                said.trim()
            );
            pauses.push((drill, pause));
            if then_wait_for_a_standby {
                let cluster = Arc::clone(&cluster);
                tokio::task::spawn_blocking(move || cluster.wait_for_a_synchronous_standby())
                    .await
                    .unwrap();
            }
        }
        load.stop.store(true, Ordering::SeqCst);
        let mut results = Vec::new();
        for task in tasks {
            results.push(task.await.unwrap());
        }
        for (drill, pause) in pauses {
            assert!(pause <= LONGEST_PAUSE, "{drill:?}: no sale for {pause:?}");
        }
        results
    });
    // The last node standing has every acknowledged sale, once.
    let mut sql = postgres::Client::connect(&cluster.database_url(), postgres::NoTls).unwrap();
    let mut tickets = HashSet::new();
    let (mut total_balance, mut total_stakes, mut total_prizes) = (0i64, 0i64, 0i64);
    for (player, acknowledged) in &results {
        let stored: HashMap<String, Sale> = sql
            .query(
                "SELECT idempotency_key, sale_id, block, position, stake_cents, prize_cents \
                 FROM sales WHERE player_id = $1",
                &[player],
            )
            .unwrap()
            .iter()
            .map(|r| (r.get(0), (r.get(1), r.get(2), r.get(3), r.get(4), r.get(5))))
            .collect();
        assert_eq!(&stored, acknowledged, "{player}");
        let balance: i64 = sql
            .query_one("SELECT balance_cents FROM players WHERE id = $1", &[player])
            .unwrap()
            .get(0);
        let stakes: i64 = acknowledged.values().map(|s| s.3).sum();
        let prizes: i64 = acknowledged.values().map(|s| s.4).sum();
        assert_eq!(balance + stakes, START_CENTS as i64 + prizes, "{player}");
        for sale in acknowledged.values() {
            assert!(tickets.insert((sale.1, sale.2)), "sold twice: {sale:?}");
        }
        total_balance += balance;
        total_stakes += stakes;
        total_prizes += prizes;
    }
    crate::assert_sales_each_of_their_own_ticket(&mut sql, tickets.len());
    assert_eq!(
        total_balance + total_stakes,
        (START_CENTS * CLIENTS as u64) as i64 + total_prizes
    );
}
