//! The page framed by a portal, in headless Chromium: the messages it posts
//! reach its parent only on a portal origin, and it acts only on messages
//! from its parent window on one. The parent is a real window (a
//! same-origin iframe of the test page) and the messages real
//! `postMessage` deliveries, so the browser's own target-origin rule is
//! what is tested, not a stand-in.

mod support;

use eldorado_web::app::App;
use eldorado_web::fixtures;
use eldorado_web::game::Phase;
use eldorado_web::i18n::Lang;
use eldorado_web::launch::Launch;
use eldorado_web::reveal::Timing;
use serde_json::{json, Value};
use std::cell::RefCell;
use std::rc::Rc;
use support::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn own_origin() -> String {
    web_sys::window().unwrap().location().origin().unwrap()
}

/// A window to play the portal: an empty iframe of the test page's origin,
/// and every message delivered to it, as JSON.
struct FakeParent {
    frame: web_sys::HtmlIFrameElement,
    window: web_sys::Window,
    received: Rc<RefCell<Vec<Value>>>,
    _listener: Closure<dyn FnMut(web_sys::MessageEvent)>,
}

impl FakeParent {
    fn new() -> FakeParent {
        let doc = web_sys::window().unwrap().document().unwrap();
        let frame: web_sys::HtmlIFrameElement =
            doc.create_element("iframe").unwrap().dyn_into().unwrap();
        doc.body().unwrap().append_child(&frame).unwrap();
        let window = frame.content_window().expect("an iframe has a window");
        let received = Rc::new(RefCell::new(Vec::new()));
        let sink = Rc::clone(&received);
        let listener = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(
            move |event: web_sys::MessageEvent| {
                let text: String = js_sys::JSON::stringify(&event.data()).unwrap().into();
                let mut message: Value = serde_json::from_str(&text).unwrap();
                message["_origin"] = json!(event.origin());
                sink.borrow_mut().push(message);
            },
        );
        window
            .add_event_listener_with_callback("message", listener.as_ref().unchecked_ref())
            .unwrap();
        FakeParent {
            frame,
            window,
            received,
            _listener: listener,
        }
    }

    fn types(&self) -> Vec<String> {
        self.received
            .borrow()
            .iter()
            .map(|m| m["type"].as_str().unwrap_or("?").to_owned())
            .collect()
    }

    fn last(&self, kind: &str) -> Option<Value> {
        self.received
            .borrow()
            .iter()
            .rev()
            .find(|m| m["type"] == kind)
            .cloned()
    }

    /// Posts a marker to this window from the game's window, the window the
    /// page posts from, and waits until it is delivered: messages from one
    /// window to another are delivered in the order they were posted, so
    /// every message the page posted before has been delivered by then, or
    /// dropped by the browser. Then the page has rendered a frame more, so
    /// a resize it would report has been reported too.
    async fn settled(&self) {
        frames_rendered().await;
        let marker = js_sys::JSON::parse(r#"{"type": "marker"}"#).unwrap();
        self.window.post_message(&marker, "*").unwrap();
        let posted = self.received.borrow().len();
        wait_for("the marker", || {
            self.received.borrow()[posted..]
                .iter()
                .any(|m| m["type"] == "marker")
        })
        .await;
        self.received.borrow_mut().retain(|m| m["type"] != "marker");
    }

    /// A real `postMessage` from this window to the game's.
    fn post_from_inside(&self, message: &str) {
        let eval: js_sys::Function = js_sys::Reflect::get(&self.window, &"eval".into())
            .unwrap()
            .dyn_into()
            .unwrap();
        let script = format!("parent.postMessage({message}, '*')");
        eval.call1(&self.window, &JsValue::from_str(&script))
            .expect("the iframe posts");
    }
}

impl Drop for FakeParent {
    fn drop(&mut self) {
        self.frame.remove();
    }
}

fn mount_framed(
    backend: &FakeBackend,
    parent: &FakeParent,
    code: Option<&str>,
) -> (web_sys::HtmlElement, App) {
    let root = host();
    let launch = Launch {
        code: code.map(str::to_owned),
        lang: Lang::Fr,
        key: None,
    };
    let app = App::mount_framed(
        &root,
        launch,
        Rc::new(backend.clone()),
        parent.window.clone(),
    )
    .expect("mounts");
    app.set_timing(Timing::REDUCED);
    (root, app)
}

/// A `message` event on the game's window, as if `source` had posted it
/// from `origin` (only the browser can make a cross-origin one for real).
fn dispatch(message: Value, origin: &str, source: &web_sys::Window) {
    let init = web_sys::MessageEventInit::new();
    let data = js_sys::JSON::parse(&message.to_string()).unwrap();
    init.set_data(&data);
    init.set_origin(origin);
    init.set_source(Some(source));
    let event = web_sys::MessageEvent::new_with_event_init_dict("message", &init).unwrap();
    web_sys::window().unwrap().dispatch_event(&event).unwrap();
}

fn backend_for(origins: &[&str]) -> FakeBackend {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2, fixtures::LOSE], 5000);
    backend.state.borrow_mut().portal_origins = origins.iter().map(|o| o.to_string()).collect();
    backend
}

#[wasm_bindgen_test]
async fn a_portal_on_an_allowed_origin_hears_every_event() {
    let parent = FakeParent::new();
    let origin = own_origin();
    let backend = backend_for(&["https://other.example", &origin]);
    let (root, app) = mount_framed(&backend, &parent, None);
    ready(&app).await;
    wait_for("ready, balance and height", || {
        let types = parent.types();
        types.contains(&"balance".to_owned()) && types.contains(&"resize".to_owned())
    })
    .await;
    assert_eq!(parent.types()[0], "ready");
    let first = parent.received.borrow()[0].clone();
    assert_eq!(first["_origin"], json!(origin));
    assert_eq!(
        parent.last("balance").unwrap()["balance_cents"],
        json!(5000)
    );
    assert!(parent.last("resize").unwrap()["height"].as_u64().unwrap() > 100);

    // A winning ticket: started (stake debited), ended verified, balance.
    click(&root, ".eld-play");
    wait_for("the round's end", || {
        parent.last("round_ended").is_some() && app.game().phase() == &Phase::Ready
    })
    .await;
    wait_for("the new balance", || {
        parent.last("balance").unwrap()["balance_cents"] == json!(5100)
    })
    .await;
    assert_eq!(
        parent.last("round_started").unwrap(),
        json!({"type": "round_started", "sale_id": 1, "stake_cents": 100, "_origin": origin})
    );
    assert_eq!(
        parent.last("round_ended").unwrap(),
        json!({"type": "round_ended", "sale_id": 1, "prize_cents": 200, "verified": true, "_origin": origin})
    );
    let balances: Vec<Value> = parent
        .received
        .borrow()
        .iter()
        .filter(|m| m["type"] == "balance")
        .map(|m| m["balance_cents"].clone())
        .collect();
    assert_eq!(balances, [json!(5000), json!(4900), json!(5100)]);

    // A stake above the balance: the portal may open its cashier.
    backend.state.borrow_mut().balance = 50;
    parent.post_from_inside(r#"{"type": "refresh_balance"}"#);
    wait_for("the re-read balance", || {
        parent.last("balance").unwrap()["balance_cents"] == json!(50)
    })
    .await;
    click(&root, ".eld-popup-ok");
    click(&root, ".eld-play");
    wait_for("insufficient funds", || {
        parent.last("insufficient_funds").is_some()
    })
    .await;
}

#[wasm_bindgen_test]
async fn a_parent_on_another_origin_hears_nothing() {
    let parent = FakeParent::new();
    // The parent is on the test page's origin, which is not a portal one:
    // the browser must drop every message the page posts to it.
    let backend = backend_for(&["https://casino.example"]);
    let (root, app) = mount_framed(&backend, &parent, None);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the round's end", || {
        app.game().phase() == &Phase::Ready && app.game().ticket().is_some()
    })
    .await;
    parent.settled().await;
    assert_eq!(parent.types(), Vec::<String>::new());

    // No portal origin at all: nothing is posted, not even to `*`.
    let parent = FakeParent::new();
    let backend = backend_for(&[]);
    let (_root, app) = mount_framed(&backend, &parent, None);
    ready(&app).await;
    parent.settled().await;
    assert_eq!(parent.types(), Vec::<String>::new());
}

#[wasm_bindgen_test]
async fn the_page_obeys_only_its_parent_on_a_portal_origin() {
    let parent = FakeParent::new();
    let origin = own_origin();
    let backend = backend_for(&[&origin]);
    let (root, app) = mount_framed(&backend, &parent, None);
    ready(&app).await;
    assert!(app.muted(), "the tests start muted");
    let me = web_sys::window().unwrap();
    // Every message the game's window receives, counted after the page's
    // own listener has handled it (dispatched ones at once).
    let heard = Heard::on(&me, "message");

    // From the parent window, but not from a portal origin.
    dispatch(
        json!({"type": "unmute"}),
        "https://evil.example",
        &parent.window,
    );
    // From a portal origin, but not from the parent window.
    dispatch(json!({"type": "unmute"}), &origin, &me);
    let stranger = FakeParent::new();
    dispatch(json!({"type": "unmute"}), &origin, &stranger.window);
    stranger.post_from_inside(r#"{"type": "unmute"}"#);
    wait_for("the stranger's message", || heard.count() == 4).await;
    assert!(app.muted(), "a message from a stranger was obeyed");

    // From the parent on its origin: obeyed.
    parent.post_from_inside(r#"{"type": "unmute"}"#);
    wait_for("unmuted", || !app.muted()).await;
    assert_eq!(text(&root, ".eld-mute"), "Son activé");
    dispatch(json!({"type": "mute"}), &origin, &parent.window);
    wait_for("muted", || app.muted()).await;
    // Anything else from the parent is ignored.
    dispatch(
        json!({"type": "credit", "amount": 100}),
        &origin,
        &parent.window,
    );
    dispatch(json!("close"), &origin, &parent.window);
    assert_eq!(heard.count(), 8);
    assert!(!app.closed());

    // `close` from a stranger does nothing; from the parent it ends it all.
    dispatch(
        json!({"type": "close"}),
        "https://evil.example",
        &parent.window,
    );
    assert_eq!(heard.count(), 9);
    assert!(!app.closed());
    // What the page said before the close (its height, once laid out) has
    // arrived: only what follows the close is counted.
    parent.settled().await;
    let before = parent.received.borrow().len();
    parent.post_from_inside(r#"{"type": "close"}"#);
    wait_for("closed", || app.closed()).await;
    wait_for("the session ended", || {
        !backend.state.borrow().ended.is_empty()
    })
    .await;
    assert!(root.query_selector(".eld-play").unwrap().is_none());
    assert_eq!(
        text(&root, ".eld-closed"),
        "La partie est terminée. Vous pouvez fermer cette fenêtre."
    );
    // Nothing more is heard or said.
    let reads = backend.state.borrow().session_reads;
    dispatch(json!({"type": "refresh_balance"}), &origin, &parent.window);
    assert_eq!(backend.state.borrow().session_reads, reads, "heard");
    parent.settled().await;
    assert_eq!(parent.received.borrow().len(), before);
}

#[wasm_bindgen_test]
async fn a_launch_code_gives_the_session_and_its_lobby() {
    web_sys::window()
        .unwrap()
        .session_storage()
        .unwrap()
        .unwrap()
        .clear()
        .unwrap();
    let parent = FakeParent::new();
    let origin = own_origin();
    let backend = backend_for(&[&origin]);
    let lobby = format!("{origin}/lobby?from=game");
    backend.state.borrow_mut().lobby_url = Some(lobby.clone());
    let code = "ab".repeat(32);
    let (root, app) = mount_framed(&backend, &parent, Some(&code));
    ready(&app).await;
    assert_eq!(backend.state.borrow().launch_codes, vec![code.clone()]);
    let link: web_sys::HtmlAnchorElement = query(&root, ".eld-lobby").dyn_into().unwrap();
    assert!(!link.hidden());
    assert_eq!(link.href(), lobby);
    assert_eq!(link.target(), "_top");
    assert_eq!(text(&root, ".eld-lobby"), "Lobby");
    drop(app);

    // The same code again (a reload of the launch URL): refused, with the
    // way back to the lobby this tab's session knows.
    let (root, app) = mount_framed(&backend, &parent, Some(&code));
    wait_for("the refusal", || {
        !query(&root, ".eld-notice-lobby").hidden()
    })
    .await;
    assert_eq!(app.game().phase(), &Phase::Loading);
    assert!(text(&root, ".eld-notice-text").contains("déjà servi ou a expiré"));
    assert!(query(&root, ".eld-retry").hidden());
    let back: web_sys::HtmlAnchorElement = query(&root, ".eld-notice-lobby").dyn_into().unwrap();
    assert_eq!(back.href(), lobby);
    assert_eq!(text(&root, ".eld-notice-lobby"), "Retour au lobby");
    wait_for("the portal is told", || {
        parent
            .last("error")
            .is_some_and(|m| m["code"] == "LAUNCH_INVALID")
    })
    .await;
}

#[wasm_bindgen_test]
async fn a_lobby_off_the_portal_origins_is_not_offered() {
    let parent = FakeParent::new();
    let origin = own_origin();
    for lobby in ["https://evil.example/lobby", "javascript:alert(1)"] {
        let backend = backend_for(&[&origin]);
        backend.state.borrow_mut().lobby_url = Some(lobby.to_owned());
        let (root, app) = mount_framed(&backend, &parent, None);
        ready(&app).await;
        assert!(query(&root, ".eld-lobby").hidden(), "{lobby} offered");
    }
}
