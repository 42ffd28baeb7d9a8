//! Eldorado in the browser: the grid, the reveal and the verification of
//! every sale, compiled to WebAssembly.
//!
//! Pure modules (`game`, `i18n`, `money`, `layout`, `reveal`, `launch`,
//! `verification`, `commitments`, `operator_key`, `rules_check`, `history`,
//! `protection`, `reality_check`, `record`, `api`) know nothing of the DOM and are
//! tested natively; the glue (`app`, `ui`, `board`, `symbols`, `sound`,
//! `net`, `dom`, `receipt`, `console`) talks to the browser. Outcomes come
//! only from the server's signed sales; the engine is used here to verify
//! and to draw, never to decide.

// The page is single-threaded (no atomics): talc's allocator for that
// case, smaller in the bundle than the default dlmalloc.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

pub mod api;
pub mod app;
pub mod beacon_check;
pub mod beacon_pin;
#[cfg(feature = "bench")]
mod bench_frames;
pub mod board;
pub mod commitments;
pub mod console;
pub mod count_up;
pub mod dom;
pub mod fixtures;
pub mod game;
pub mod history;
pub mod i18n;
pub mod js_value;
pub mod launch;
pub mod layout;
pub mod money;
pub mod net;
pub mod operator_key;
pub mod portal;
pub mod protection;
pub mod reality_check;
pub mod receipt;
pub mod record;
pub mod reveal;
pub mod rules_check;
pub mod rules_page;
pub mod sound;
pub mod symbols;
pub mod text;
pub mod ui;
pub mod verification;

use console::LogFailure;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// Runs when the module is instantiated: checks the page can host the game.
#[wasm_bindgen(start)]
pub fn start() -> Result<(), JsValue> {
    dom::document().map(|_| ())
}

/// The game as JavaScript holds it: all state stays in Rust; calling
/// `free()` (or dropping it) removes every listener.
#[wasm_bindgen]
pub struct GameHandle {
    _app: app::App,
}

/// Mounts the game in `root`, reading `?launch=`, `?lang=` and `?key=`
/// from the page address; the launch code leaves the address at once.
/// `early`: the requests `www/main.js` started while the module was on its
/// way, which the game takes instead of sending them again.
/// `check_rounds`: loads the check of the beacon's rounds, a module of its
/// own (`beacon_check`); returns a promise of that check.
#[wasm_bindgen]
pub fn launch(
    root: web_sys::HtmlElement,
    early: Option<js_sys::Array>,
    check_rounds: Option<js_sys::Function>,
) -> Result<GameHandle, JsValue> {
    beacon_check::set_loader(check_rounds);
    let window = dom::window()?;
    let location = window.location();
    let search = location.search()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search)?;
    let values = launch::PARAMS.map(|key| params.get(key));
    let launch = launch::Launch::from_query(
        launch::PARAMS
            .into_iter()
            .zip(&values)
            .filter_map(|(key, value)| Some((key, value.as_deref()?))),
    );
    if params.has("launch") {
        // Out of the address bar, the history and any copy of the address
        // before the first request, so a used code is not left lying around.
        let address = launch::without_code(&location.pathname()?, &search, &location.hash()?);
        window
            .history()?
            .replace_state_with_url(&JsValue::NULL, "", Some(&address))?;
    }
    if let Some(doc) = root.owner_document() {
        if let Some(html) = doc.document_element() {
            html.set_attribute("lang", launch.lang.code())
                .log_failure("setting the page language");
        }
        doc.set_title(match launch.lang {
            i18n::Lang::Fr => "Eldorado — jeu instantané",
            i18n::Lang::En => "Eldorado — instant game",
        });
    }
    let backend = Rc::new(match early {
        Some(early) => net::HttpBackend::with_early(&early),
        None => net::HttpBackend::same_origin(),
    });
    let app = app::App::mount(&root, launch, backend)?;
    Ok(GameHandle { _app: app })
}

/// A genuine sale from a 400,000-leaf block and its key, to time
/// verification in a real browser (`www/bench/`). Built only with the
/// `bench` feature.
#[cfg(feature = "bench")]
#[wasm_bindgen]
pub struct BenchCase {
    response: api::SaleResponse,
    key: eldorado_engine::PublicKeyBytes,
}

#[cfg(feature = "bench")]
#[wasm_bindgen]
impl BenchCase {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Result<BenchCase, JsValue> {
        let block = fixtures::FixtureBlock::padded(
            1,
            100,
            &[fixtures::EXTRA_2_WIN_10],
            eldorado_engine::prize_table::BLOCK_TICKETS,
        );
        let key = verification::parse_public_key(&block.public_key_hex())
            .map_err(|r| JsValue::from_str(&r.reason))?;
        Ok(BenchCase {
            response: block.response(0, 1, 5000),
            key,
        })
    }

    /// Hashes in the Merkle proof (19 for 400,000 tickets).
    pub fn proof_len(&self) -> usize {
        self.response.sale.sale.proof.len()
    }

    /// Everything the game checks before showing a sale.
    pub fn verify_once(&self) -> bool {
        let buyer = verification::Buyer {
            stake_cents: 100,
            player: fixtures::PLAYER,
            money: eldorado_engine::Money::Play,
            client_nonce: Some(self.response.sale.sale.client_nonce),
            commitment_seen: eldorado_engine::verify::CommitmentSeen::Seen(
                &self.response.commitment,
            ),
            beacon: None,
        };
        verification::verify(&self.response, &self.key, &buyer).is_ok()
    }
}

/// What the page checks of the public record for one sale, to time it in a
/// real browser (`www/bench/`): open a cosigned checkpoint (the log's and
/// a witness's signatures), accept it after the one kept (a consistency
/// proof), and prove the sale's record in it (an inclusion proof), on a
/// log of 420,462 records (a sold-out block and some), the page having
/// kept the checkpoint of 400,000. Built only with the `bench` feature.
#[cfg(feature = "bench")]
#[wasm_bindgen]
pub struct BenchRecord {
    note: String,
    log_key: eldorado_engine::transparency::LogKey,
    witnesses: Vec<eldorado_engine::transparency::WitnessKey>,
    keeper: record::CheckpointKeeper,
    consistency: Vec<eldorado_engine::Hash>,
    leaf: Vec<u8>,
    index: u64,
    inclusion: api::InclusionProof,
    root: eldorado_engine::Hash,
}

#[cfg(feature = "bench")]
#[wasm_bindgen]
impl BenchRecord {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Result<BenchRecord, JsValue> {
        const KEPT: u64 = 400_000;
        const SIZE: u64 = 420_462;
        let mut log = fixtures::FixtureLog::new();
        for i in 0..SIZE {
            // Sale-sized records: 200 bytes each.
            let mut leaf = vec![0u8; 200];
            leaf[..8].copy_from_slice(&i.to_be_bytes());
            log.append(leaf);
        }
        let index = 123_456;
        let bad =
            |e: eldorado_engine::transparency::CheckpointError| JsValue::from_str(&e.to_string());
        let log_key = eldorado_engine::transparency::LogKey::parse(&fixtures::log_key(
            &fixtures::public_key_hex(),
        ))
        .map_err(bad)?;
        let witnesses =
            vec![
                eldorado_engine::transparency::WitnessKey::parse(&fixtures::witness_vkey())
                    .map_err(bad)?,
            ];
        Ok(BenchRecord {
            note: log.checkpoint(true),
            log_key,
            witnesses,
            keeper: record::CheckpointKeeper {
                kept: Some(record::Kept {
                    size: KEPT,
                    root: log.root(KEPT),
                }),
                forked: false,
            },
            consistency: log.consistency(KEPT, SIZE),
            leaf: log.leaf(index).map(<[u8]>::to_vec).unwrap_or_default(),
            index,
            inclusion: log.inclusion(index, SIZE),
            root: log.root(SIZE),
        })
    }

    /// Hashes in the two proofs.
    pub fn proof_len(&self) -> usize {
        self.consistency.len() + self.inclusion.hashes.len()
    }

    /// The two proofs alone, on a checkpoint already opened.
    pub fn proofs_once(&self) -> bool {
        let checked = eldorado_engine::transparency::CheckedCheckpoint {
            size: self.inclusion.size,
            root: self.root,
            witnesses: Vec::new(),
            cosigned_at: Vec::new(),
        };
        let mut keeper = self.keeper.clone();
        keeper.accept(&checked, &self.consistency).is_ok()
            && record::included(&self.leaf, self.index, &checked, &self.inclusion)
    }

    /// Everything the page checks of the record for one sale.
    pub fn verify_once(&self) -> bool {
        let Ok(checked) = eldorado_engine::transparency::open_checkpoint(
            self.note.as_bytes(),
            &self.log_key,
            &self.witnesses,
            1,
        ) else {
            return false;
        };
        let mut keeper = self.keeper.clone();
        keeper.accept(&checked, &self.consistency).is_ok()
            && record::included(&self.leaf, self.index, &checked, &self.inclusion)
    }
}
