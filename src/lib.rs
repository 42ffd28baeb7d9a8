//! Eldorado in the browser: the grid, the reveal and the verification of
//! every sale, compiled to WebAssembly.
//!
//! Pure modules (`game`, `i18n`, `money`, `layout`, `reveal`, `launch`,
//! `verification`, `api`) know nothing of the DOM and are tested natively;
//! the glue (`app`, `ui`, `board`, `symbols`, `sound`, `net`, `dom`) talks to
//! the browser. Outcomes come only from the server's signed sales; the
//! engine is used here to verify and to draw, never to decide.

pub mod api;
pub mod app;
pub mod board;
pub mod dom;
pub mod fixtures;
pub mod game;
pub mod i18n;
pub mod launch;
pub mod layout;
pub mod money;
pub mod net;
pub mod reveal;
pub mod sound;
pub mod symbols;
pub mod ui;
pub mod verification;

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

/// Mounts the game in `root`, reading `?server=`, `?token=` and `?lang=`
/// from the page address.
#[wasm_bindgen]
pub fn launch(root: web_sys::HtmlElement) -> Result<GameHandle, JsValue> {
    let location = dom::window()?.location();
    let origin = location.origin()?;
    let params = web_sys::UrlSearchParams::new_with_str(&location.search()?)?;
    let pairs: Vec<(String, String)> = ["server", "token", "lang"]
        .iter()
        .filter_map(|key| params.get(key).map(|v| (key.to_string(), v)))
        .collect();
    let launch =
        launch::Launch::from_query(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())), &origin);
    if let Some(doc) = root.owner_document() {
        if let Some(html) = doc.document_element() {
            let _ = html.set_attribute("lang", launch.lang.code());
        }
        doc.set_title(match launch.lang {
            i18n::Lang::Fr => "Eldorado — jeu instantané",
            i18n::Lang::En => "Eldorado — instant game",
        });
    }
    let backend = Rc::new(net::HttpBackend::new(&launch.server));
    let app = app::App::mount(&root, launch, backend)?;
    Ok(GameHandle { _app: app })
}
