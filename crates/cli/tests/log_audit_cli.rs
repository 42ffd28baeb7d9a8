//! `eldorado log audit URL` as a monitor runs it, against a log served
//! over HTTP by this test: a real 400,000-ticket block (closed, with its
//! export), a small block on sale, checkpoints signed and cosigned with
//! the engine. (The real server's routes are tested end to end elsewhere.)

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use eldorado_api::{BlockInfo, BlockStatus, ConsistencyProof, LogLeaves, PageListing};
use eldorado_engine::commit::{public_key_of, signing_key_from_secret};
use eldorado_engine::export::{ExportHeader, ExportRow};
use eldorado_engine::transparency::{
    page_fingerprint, sign_checkpoint, Cosigner, LogEntry, LogKey, MemoryTree, PageBuild,
};
use eldorado_engine::{
    generate_block, BlockRng, ClientNonce, Commitment, Hash, LoggedSale, Money, Params,
    SeedableRng, SignedCommitment, SigningKey, Stake,
};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex, OnceLock};

const ORIGIN: &str = "eldorado.test/log";
/// Small pages: the auditor must walk them.
const PER_PAGE: usize = 4;

fn operator() -> SigningKey {
    signing_key_from_secret([7; 32])
}

fn witness() -> Cosigner {
    Cosigner::new("witness-test", signing_key_from_secret([9; 32])).unwrap()
}

fn tree_of(leaves: &[Vec<u8>]) -> MemoryTree {
    let mut tree = MemoryTree::default();
    for leaf in leaves {
        tree.append(leaf).unwrap();
    }
    tree
}

/// A closed real block (block 1) with its export.
struct RealBlock {
    signed: SignedCommitment,
    leaves: Vec<Hash>,
    export: Vec<u8>,
}

fn real_block() -> &'static RealBlock {
    static BLOCK: OnceLock<RealBlock> = OnceLock::new();
    BLOCK.get_or_init(|| {
        let block = generate_block(
            1,
            Stake::from_cents(100).unwrap(),
            &Params::default(),
            &mut BlockRng::seed_from_u64(1),
        )
        .unwrap();
        let signed = block.commitment(Money::Real).sign(&operator());
        let mut export =
            serde_json::to_vec(&ExportHeader::new(&block, Money::Real, Some(&signed))).unwrap();
        export.push(b'\n');
        for ticket in &block.tickets {
            let row = ExportRow {
                leaf: block.tree.leaf(ticket.position).unwrap(),
                ticket: ticket.clone(),
            };
            serde_json::to_writer(&mut export, &row).unwrap();
            export.push(b'\n');
        }
        RealBlock {
            signed,
            leaves: (0..3).map(|p| block.tree.leaf(p).unwrap()).collect(),
            export,
        }
    })
}

fn small_commitment() -> SignedCommitment {
    Commitment::new(2, 50, 5, Money::Play, Hash([2; 32])).sign(&operator())
}

fn sale(sale_id: u64, block: u64, tickets: u32, position: u32, leaf: Hash) -> Vec<u8> {
    let sale = LoggedSale {
        sale_id,
        block,
        tickets,
        position,
        ticket_leaf: leaf,
        player: "bob".to_owned(),
        sold_at_ms: 1_796_200_000_000 + sale_id,
        client_nonce: ClientNonce([1; 16]),
        balance_before_cents: 10_000,
        balance_after_cents: 9_900,
    };
    LogEntry::sign_sale(sale, &operator())
        .unwrap()
        .to_leaf()
        .unwrap()
}

/// Block 1 (real, closed after 3 sales) and block 2 (small, on sale).
fn honest_leaves() -> Vec<Vec<u8>> {
    let real = real_block();
    vec![
        LogEntry::of_commitment(&real.signed).to_leaf().unwrap(),
        sale(1, 1, 400_000, 0, real.leaves[0]),
        sale(2, 1, 400_000, 1, real.leaves[1]),
        LogEntry::of_commitment(&small_commitment())
            .to_leaf()
            .unwrap(),
        sale(3, 2, 5, 0, Hash([0x21; 32])),
        sale(4, 1, 400_000, 2, real.leaves[2]),
        sale(5, 2, 5, 1, Hash([0x22; 32])),
    ]
}

struct Served {
    leaves: Vec<Vec<u8>>,
    tree: MemoryTree,
    latest: String,
    cosigned: String,
    page: Option<FakePage>,
}

/// A page as a server serves it: its listing (`GET /api/log/page`) and
/// the bytes answered for each path, plain or by `Accept-Encoding`.
#[derive(Clone)]
struct FakePage {
    listing: PageListing,
    bytes: HashMap<String, Vec<u8>>,
}

impl FakePage {
    /// A built page of three files, one with its brotli form, listed
    /// honestly.
    fn built() -> FakePage {
        let bytes: HashMap<String, Vec<u8>> = [
            ("www/pkg/index.html", b"<p>page</p>".to_vec()),
            ("www/pkg/main-0123456789abcdef.js", b"main();".to_vec()),
            ("www/pkg/main-0123456789abcdef.js.br", b"\x8bmain".to_vec()),
            ("www/pkg/page-policy.json", b"{}".to_vec()),
        ]
        .into_iter()
        .map(|(path, bytes)| (path.to_owned(), bytes))
        .collect();
        let hashes: HashMap<String, Hash> = bytes
            .iter()
            .map(|(path, b)| (path.clone(), Hash(Sha256::digest(b).into())))
            .collect();
        let fingerprint = page_fingerprint(hashes.iter().map(|(p, h)| (p.as_str(), h)));
        FakePage {
            listing: PageListing {
                fingerprint: hex::encode(fingerprint.0),
                files: hashes
                    .iter()
                    .map(|(p, h)| (p.clone(), hex::encode(h.0)))
                    .collect(),
            },
            bytes,
        }
    }

    fn fingerprint(&self) -> Hash {
        Hash(
            hex::decode(&self.listing.fingerprint)
                .unwrap()
                .try_into()
                .unwrap(),
        )
    }

    /// Its page record, first published at a fixed time.
    fn record(&self) -> Vec<u8> {
        let page = PageBuild {
            published_at_ms: 1_796_100_000_000,
            files: self.listing.files.len() as u32,
            fingerprint: self.fingerprint(),
        };
        LogEntry::sign_page(page, &operator()).to_leaf().unwrap()
    }
}

type Shared = Arc<Mutex<Served>>;

struct FakeServer {
    url: String,
    _runtime: tokio::runtime::Runtime,
}

fn checkpoint(leaves: &[Vec<u8>]) -> String {
    let size = leaves.len() as u64;
    let note = sign_checkpoint(
        ORIGIN,
        size,
        &tree_of(leaves).root(size).unwrap(),
        &operator(),
    )
    .unwrap();
    String::from_utf8(note).unwrap()
}

impl FakeServer {
    /// Serves `served` leaves under a checkpoint the log signed over `signed`.
    fn start(signed: &[Vec<u8>], served: Vec<Vec<u8>>) -> FakeServer {
        FakeServer::start_with_page(signed, served, None)
    }

    /// The same, serving `page` too.
    fn start_with_page(
        signed: &[Vec<u8>],
        served: Vec<Vec<u8>>,
        page: Option<FakePage>,
    ) -> FakeServer {
        let latest = checkpoint(signed);
        let cosigned =
            latest.clone() + &witness().cosign(latest.as_bytes(), 1_796_200_000).unwrap();
        let served = Arc::new(Mutex::new(Served {
            tree: tree_of(&served),
            leaves: served,
            latest,
            cosigned,
            page,
        }));
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let app = Router::new()
            .route("/api/config", get(config))
            .route("/api/log/checkpoint/latest", get(latest_note))
            .route("/api/log/checkpoint", get(cosigned_note))
            .route("/api/log/leaves", get(leaves))
            .route("/api/log/proof/consistency", get(consistency))
            .route("/api/blocks/{block}", get(block))
            .route("/api/blocks/{block}/export", get(export))
            .route("/api/log/page", get(page_listing))
            .fallback(page_file)
            .with_state(served.clone());
        runtime.spawn(async move { axum::serve(listener, app).await.unwrap() });
        FakeServer {
            url,
            _runtime: runtime,
        }
    }
}

async fn config() -> Json<serde_json::Value> {
    let log_key = LogKey::new(ORIGIN, operator().verifying_key()).unwrap();
    Json(serde_json::json!({
        "stakes_cents": [50, 100, 200],
        "public_key": public_key_of(&operator()).to_hex(),
        "rtp_basis_points": 7000,
        "odds": {"tickets": 400000, "winners": 60440},
        "max_win_cents": {"100": 700000},
        "prize_table": [],
        "demo": false,
        "starting_balance_cents": 0,
        "portal_origins": [],
        "log": {
            "origin": ORIGIN,
            "key": log_key.vkey(),
            "witnesses": [witness().witness_key().vkey()],
            "quorum": 1
        }
    }))
}

async fn latest_note(State(served): State<Shared>) -> String {
    served.lock().unwrap().latest.clone()
}

async fn cosigned_note(State(served): State<Shared>) -> String {
    served.lock().unwrap().cosigned.clone()
}

async fn leaves(
    State(served): State<Shared>,
    Query(query): Query<HashMap<String, u64>>,
) -> Result<Json<LogLeaves>, StatusCode> {
    let served = served.lock().unwrap();
    let (start, end) = (query["start"] as usize, query["end"] as usize);
    let published = served.leaves.len();
    if start >= published || start >= end {
        return Err(StatusCode::BAD_REQUEST);
    }
    let end = end.min(start + PER_PAGE).min(published);
    Ok(Json(LogLeaves {
        start: start as u64,
        leaves: served.leaves[start..end].iter().map(hex::encode).collect(),
    }))
}

async fn consistency(
    State(served): State<Shared>,
    Query(query): Query<HashMap<String, u64>>,
) -> Result<Json<ConsistencyProof>, StatusCode> {
    let served = served.lock().unwrap();
    let (from, size) = (query["from"], query["size"]);
    if from > size || size > served.leaves.len() as u64 {
        return Err(StatusCode::BAD_REQUEST);
    }
    let hashes = served.tree.consistency(from, size).unwrap();
    Ok(Json(ConsistencyProof { from, size, hashes }))
}

fn block_info(id: u64) -> Option<BlockInfo> {
    match id {
        1 => Some(BlockInfo {
            commitment: real_block().signed.clone(),
            status: BlockStatus::Closed,
            log_index: Some(0),
            sold: Some(3),
            remaining_by_rank: None,
        }),
        2 => Some(BlockInfo {
            commitment: small_commitment(),
            status: BlockStatus::Open,
            log_index: Some(3),
            sold: None,
            remaining_by_rank: None,
        }),
        _ => None,
    }
}

async fn block(Path(id): Path<u64>) -> Result<Json<BlockInfo>, StatusCode> {
    block_info(id).map(Json).ok_or(StatusCode::NOT_FOUND)
}

async fn export(Path(id): Path<u64>) -> Response {
    match id {
        1 => Body::from(real_block().export.clone()).into_response(),
        2 => StatusCode::CONFLICT.into_response(),
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn page_listing(State(served): State<Shared>) -> Result<Json<PageListing>, StatusCode> {
    let served = served.lock().unwrap();
    let page = served.page.as_ref().ok_or(StatusCode::NOT_FOUND)?;
    Ok(Json(page.listing.clone()))
}

/// A page's file as the real server serves it: `/` is the page, the
/// brotli form goes to a browser that accepts it, and a file without one
/// is compressed as it is served (gzip here).
async fn page_file(State(served): State<Shared>, request: axum::extract::Request) -> Response {
    let served = served.lock().unwrap();
    let Some(page) = served.page.as_ref() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let path = match request.uri().path() {
        "/" => "www/pkg/index.html",
        other => other.trim_start_matches('/'),
    };
    let accepts = |coding: &str| {
        request
            .headers()
            .get("accept-encoding")
            .is_some_and(|v| v.to_str().unwrap_or("").contains(coding))
    };
    let brotli = format!("{path}.br");
    let (chosen, coding) = match page.bytes.get(&brotli) {
        Some(bytes) if accepts("br") => (bytes.clone(), Some("br")),
        _ => match page.bytes.get(path) {
            Some(bytes) if accepts("gzip") => {
                let mut gzip =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                std::io::Write::write_all(&mut gzip, bytes).unwrap();
                (gzip.finish().unwrap(), Some("gzip"))
            }
            Some(bytes) => (bytes.clone(), None),
            None => return StatusCode::NOT_FOUND.into_response(),
        },
    };
    let mut response = Body::from(chosen).into_response();
    if let Some(coding) = coding {
        response
            .headers_mut()
            .insert("content-encoding", coding.parse().unwrap());
    }
    response
}

fn audit(url: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eldorado"))
        .args(["log", "audit", url])
        .args(extra)
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn an_honest_log_passes_and_extends_an_earlier_checkpoint() {
    let leaves = honest_leaves();
    let server = FakeServer::start(&leaves, leaves.clone());
    let dir = tempfile::tempdir().unwrap();
    let previous = dir.path().join("previous.checkpoint");
    std::fs::write(&previous, checkpoint(&leaves[..3])).unwrap();
    let output = audit(&server.url, &["--previous", previous.to_str().unwrap()]);
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        text(&output.stderr)
    );
    assert!(!stdout.contains("FINDING"), "{stdout}");
    let summary = stdout.lines().last().unwrap();
    assert!(
        summary.contains(
            "records 7, commitments 2, sales 5, blocks 2, refilled 0, findings 0, seconds"
        ),
        "{summary}"
    );
    assert!(
        summary.starts_with(&format!("log {ORIGIN} at size 7 root ")),
        "{summary}"
    );
}

#[test]
fn a_changed_record_and_a_forked_earlier_checkpoint_are_findings() {
    let signed = honest_leaves();
    let mut served = signed.clone();
    // Sale 2 now claims the ticket of position 2.
    served[2] = sale(2, 1, 400_000, 1, real_block().leaves[2]);
    let server = FakeServer::start(&signed, served.clone());
    let dir = tempfile::tempdir().unwrap();
    let previous = dir.path().join("previous.checkpoint");
    let mut other = signed[..4].to_vec();
    other[3] = sale(9, 2, 5, 4, Hash([9; 32]));
    std::fs::write(&previous, checkpoint(&other)).unwrap();
    let output = audit(&server.url, &["--previous", previous.to_str().unwrap()]);
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{stdout}{}",
        text(&output.stderr)
    );
    let findings: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("FINDING: "))
        .collect();
    let has = |needle: &str| findings.iter().any(|f| f.contains(needle));
    assert!(has("the latest checkpoint (size 7) has root"), "{stdout}");
    assert!(has("block 1 export: position 1 is ticket"), "{stdout}");
    assert!(has("the previous checkpoint (size 4) has root"), "{stdout}");
    assert!(
        has("the previous checkpoint: the log's consistency proof 4..7 fails"),
        "{stdout}"
    );
    assert!(stdout
        .lines()
        .last()
        .unwrap()
        .contains(&format!("findings {}", findings.len())));
}

#[test]
fn usage_and_network_errors_exit_2() {
    let unreachable = audit("http://127.0.0.1:9", &[]);
    assert_eq!(unreachable.status.code(), Some(2));
    assert!(text(&unreachable.stderr).contains("GET /api/config"));
    let not_a_url = audit("eldorado.example", &[]);
    assert_eq!(not_a_url.status.code(), Some(2));
    let leaves = honest_leaves();
    let server = FakeServer::start(&leaves, leaves.clone());
    let bad_key = audit(&server.url, &["--operator-key", "abc"]);
    assert_eq!(bad_key.status.code(), Some(2), "{}", text(&bad_key.stderr));
    assert!(text(&bad_key.stderr).contains("--operator-key"));
}

/// Audits a log of `leaves` serving `page`, expecting exit status `code`;
/// what it printed.
fn audit_page(leaves: Vec<Vec<u8>>, page: FakePage, code: i32) -> String {
    let server = FakeServer::start_with_page(&leaves, leaves.clone(), Some(page));
    let output = audit(&server.url, &[]);
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(code),
        "{stdout}{}",
        text(&output.stderr)
    );
    stdout
}

/// The log names the page served: the audit fetches every file as a
/// browser would and passes. The same log with one file of the page
/// changed for everyone, or with another build's listing, is a finding.
#[test]
fn the_page_served_must_be_the_one_the_log_names_last() {
    let page = FakePage::built();
    let mut leaves = honest_leaves();
    leaves.push(page.record());
    let stdout = audit_page(leaves.clone(), page.clone(), 0);
    assert!(
        stdout.lines().last().unwrap().ends_with("page records 1"),
        "{stdout}"
    );

    // Every visitor gets another script than the one listed and logged:
    // only under brotli, as most browsers ask.
    let mut swapped = page.clone();
    swapped.bytes.insert(
        "www/pkg/main-0123456789abcdef.js.br".to_owned(),
        b"steal();".to_vec(),
    );
    let stdout = audit_page(leaves.clone(), swapped, 1);
    assert!(
        stdout.contains(
            "FINDING: /www/pkg/main-0123456789abcdef.js as served for Accept-Encoding br has SHA-256"
        ),
        "{stdout}"
    );

    // A page rebuilt (its listing honest about it) but never logged.
    let mut rebuilt = page.clone();
    rebuilt
        .bytes
        .insert("www/pkg/page-policy.json".to_owned(), b"{\"w\":1}".to_vec());
    let rebuilt = FakePage {
        listing: {
            let mut files = rebuilt.listing.files.clone();
            let hash = Hash(Sha256::digest(&rebuilt.bytes["www/pkg/page-policy.json"]).into());
            files.insert("www/pkg/page-policy.json".to_owned(), hex::encode(hash.0));
            let hashes: Vec<(String, Hash)> = files
                .iter()
                .map(|(p, h)| (p.clone(), Hash(hex::decode(h).unwrap().try_into().unwrap())))
                .collect();
            let fingerprint = page_fingerprint(hashes.iter().map(|(p, h)| (p.as_str(), h)));
            PageListing {
                fingerprint: hex::encode(fingerprint.0),
                files,
            }
        },
        bytes: rebuilt.bytes,
    };
    let stdout = audit_page(leaves.clone(), rebuilt, 1);
    assert!(
        stdout.contains("is not the one the log names last (record 7"),
        "{stdout}"
    );

    // A page served by a log that names none.
    let stdout = audit_page(honest_leaves(), page, 1);
    assert!(
        stdout.contains("that no record of the log names"),
        "{stdout}"
    );
}
