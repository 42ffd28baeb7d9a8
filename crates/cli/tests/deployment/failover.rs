//! Failover: a PostgreSQL primary with a synchronous streaming standby, two
//! servers on both hosts (`target_session_attrs=read-write`). Under load the
//! primary is stopped at once (`-m immediate`, as a crash) and the standby
//! promoted; the servers reconnect without a restart, and every sale
//! acknowledged before, during and after is on the promoted standby, once.
//! Needs root and Debian's `pg_createcluster` (it makes two throwaway
//! clusters), besides `ELDORADO_TEST_POSTGRES`; else it says SKIPPED.

use crate::client::Http;
use crate::servers::Deployment;
use eldorado_engine::SignedSale;
use reqwest::StatusCode;
use std::collections::HashMap;
use std::io::Write;
use std::net::TcpListener;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

const SERVERS: usize = 2;
const CLIENTS: usize = 8;
const PLAYS: usize = 12;
/// Tries of one play before the test gives up (the failover takes seconds).
const TRIES: usize = 400;
const PASSWORD: &str = "failover-test";

/// Two Debian clusters, dropped (stopped and deleted) with the guard.
struct Pair {
    version: String,
    names: [String; 2],
    ports: [u16; 2],
}

impl Drop for Pair {
    fn drop(&mut self) {
        for name in &self.names {
            let _ = Command::new("pg_dropcluster")
                .args(["--stop", &self.version, name])
                .status();
        }
    }
}

fn run(program: &str, args: &[&str]) {
    let out = Command::new(program).args(args).output().expect(program);
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn as_postgres(args: &[&str]) {
    let mut all = vec!["-u", "postgres", "--"];
    all.extend_from_slice(args);
    run("runuser", &all);
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A primary and its synchronous standby, or `None` (said) where the test
/// cannot make clusters.
fn replicated_pair() -> Option<Pair> {
    let skip = |why: &str| {
        let _ = writeln!(std::io::stderr(), "SKIPPED failover test: {why}");
        None
    };
    if std::env::var(crate::test_database::ENV).is_err() {
        return skip("$ELDORADO_TEST_POSTGRES is not set (scripts/test.sh sets it)");
    }
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout == b"0\n");
    if !matches!(is_root, Ok(true))
        || Command::new("pg_createcluster")
            .arg("--help")
            .output()
            .is_err()
    {
        return skip("needs root and Debian's pg_createcluster");
    }
    let version = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .max_by_key(|v| v.parse::<u32>().unwrap_or(0))?;
    let id = std::process::id();
    let pair = Pair {
        version: version.clone(),
        names: [format!("ft{id}primary"), format!("ft{id}standby")],
        ports: [free_port(), free_port()],
    };
    let (primary, standby) = (&pair.names[0], &pair.names[1]);
    let ports = pair.ports.map(|p| p.to_string());
    run("pg_createcluster", &[&version, primary, "-p", &ports[0]]);
    run("pg_ctlcluster", &[&version, primary, "start"]);
    as_postgres(&[
        "psql",
        "-p",
        &ports[0],
        "-qX",
        "-v",
        "ON_ERROR_STOP=1",
        "-c",
        &format!("CREATE ROLE ft LOGIN SUPERUSER REPLICATION PASSWORD '{PASSWORD}'"),
        "-c",
        "CREATE DATABASE ft OWNER ft",
    ]);
    run("pg_createcluster", &[&version, standby, "-p", &ports[1]]);
    let data = format!("/var/lib/postgresql/{version}/{standby}");
    std::fs::remove_dir_all(&data).unwrap();
    as_postgres(&[
        "env",
        &format!("PGPASSWORD={PASSWORD}"),
        "pg_basebackup",
        "-h",
        "127.0.0.1",
        "-p",
        &ports[0],
        "-U",
        "ft",
        "-D",
        &data,
        "-R",
        "-X",
        "stream",
        "-c",
        "fast",
        "-d",
        "application_name=ft_standby",
    ]);
    run("pg_ctlcluster", &[&version, standby, "start"]);
    // Synchronous from now on: a commit returns once the standby has it.
    as_postgres(&[
        "psql",
        "-p",
        &ports[0],
        "-qX",
        "-v",
        "ON_ERROR_STOP=1",
        "-c",
        "ALTER SYSTEM SET synchronous_standby_names = 'ft_standby'",
        "-c",
        "SELECT pg_reload_conf()",
    ]);
    Some(pair)
}

#[test]
fn a_promoted_standby_has_every_acknowledged_sale() {
    let Some(pair) = replicated_pair() else {
        return;
    };
    let url = format!(
        "postgres://ft:{PASSWORD}@127.0.0.1:{},127.0.0.1:{}/ft?target_session_attrs=read-write",
        pair.ports[0], pair.ports[1]
    );
    let mut deployment = Deployment::on(SERVERS, url, None);
    let runtime = crate::runtime();
    let http = Http::new();
    runtime.block_on(deployment.wait_ready(&http));
    let urls: Arc<Vec<String>> = Arc::new(deployment.servers.iter().map(|s| s.url("")).collect());
    let results = runtime.block_on(async {
        let acknowledged = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for c in 0..CLIENTS {
            let (http, urls, acknowledged) =
                (http.clone(), Arc::clone(&urls), Arc::clone(&acknowledged));
            tasks.push(tokio::spawn(async move {
                let player_id = format!("failover-{c:02}");
                let token = http
                    .operator_player(&urls[c % SERVERS], &player_id, 5_000)
                    .await;
                let mut mine: HashMap<String, (i64, i64, i64)> = HashMap::new();
                for j in 0..PLAYS {
                    let key = format!("failover-{c:02}-play-{j:02}");
                    let body = format!(r#"{{"stake_cents":100,"idempotency_key":"{key}"}}"#);
                    let mut tries = 0;
                    let reply = loop {
                        tries += 1;
                        assert!(tries <= TRIES, "client {c}: play {j} never acknowledged");
                        let url = format!("{}/api/sales", urls[(c + tries) % SERVERS]);
                        match http.post(&url, Some(&token), &body).await {
                            Ok((StatusCode::OK, reply)) => break reply,
                            Ok((status, reply)) if status.is_client_error() => {
                                panic!("client {c}: {status}: {reply}")
                            }
                            // The database is failing over: the same key again.
                            Ok(_) | Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                        }
                    };
                    let sale: SignedSale = serde_json::from_value(reply["sale"].clone()).unwrap();
                    mine.insert(
                        key,
                        (
                            sale.sale.sale_id as i64,
                            sale.sale.block as i64,
                            i64::from(sale.sale.ticket.position),
                        ),
                    );
                    acknowledged.fetch_add(1, Ordering::SeqCst);
                }
                (player_id, mine)
            }));
        }
        crate::wait_for(&acknowledged, CLIENTS * PLAYS / 3, &tasks).await;
        let before_failover = acknowledged.load(Ordering::SeqCst);
        assert!(
            before_failover < CLIENTS * PLAYS,
            "the load ended before the failover"
        );
        // The primary crashes; the standby takes over. Blocking commands:
        // run off the async threads.
        let (version, names) = (pair.version.clone(), pair.names.clone());
        tokio::task::spawn_blocking(move || {
            run(
                "pg_ctlcluster",
                &[&version, &names[0], "stop", "-m", "immediate"],
            );
            run("pg_ctlcluster", &[&version, &names[1], "promote"]);
        })
        .await
        .unwrap();
        let mut results = Vec::new();
        for task in tasks {
            results.push(task.await.unwrap());
        }
        results
    });
    // Read on the promoted standby alone.
    let mut sql = postgres::Client::connect(
        &format!("postgres://ft:{PASSWORD}@127.0.0.1:{}/ft", pair.ports[1]),
        postgres::NoTls,
    )
    .unwrap();
    for (player, acknowledged) in results {
        assert_eq!(acknowledged.len(), PLAYS);
        let stored: HashMap<String, (i64, i64, i64)> = sql
            .query(
                "SELECT idempotency_key, sale_id, block, position FROM sales WHERE player_id = $1",
                &[&player],
            )
            .unwrap()
            .iter()
            .map(|r| (r.get(0), (r.get(1), r.get(2), r.get(3))))
            .collect();
        assert_eq!(stored, acknowledged, "{player}");
    }
    drop(deployment);
}
