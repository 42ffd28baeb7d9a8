//! Eldorado in the browser: the grid, the reveal and the verification of
//! every sale, compiled to WebAssembly.
//!
//! Pure modules (`game`, `i18n`, `money`, `layout`, `reveal`, `launch`,
//! `verification`, `commitments`, `operator_key`, `rules_check`, `history`,
//! `protection`, `reality_check`, `api`) know nothing of the DOM and are
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
#[wasm_bindgen]
pub fn launch(root: web_sys::HtmlElement) -> Result<GameHandle, JsValue> {
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
    let backend = Rc::new(net::HttpBackend::same_origin());
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
        };
        verification::verify(&self.response, &self.key, &buyer).is_ok()
    }
}
