//! Browser tests of the public record (issue 21): the checkpoint this
//! browser keeps in `localStorage` and what a newer one must prove, the
//! block commitment proved before a purchase, the sale proved after it.

mod support;

use eldorado_engine::transparency::CheckedCheckpoint;
use eldorado_engine::Hash;
use eldorado_web::app::record::{cosigned_checkpoint, load_keeper};
use eldorado_web::fixtures::{self, FixtureLog};
use eldorado_web::game::{Notice, Phase};
use eldorado_web::i18n::Lang;
use eldorado_web::record::{choose_trust, Fork, RecordProblem, RecordState, RecordTrust};
use eldorado_web::verification::parse_public_key;
use support::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn trust(backend: &FakeBackend) -> RecordTrust {
    // What the fake server announces.
    let mut config = fixtures::config(&backend.state.borrow().block.public_key_hex());
    config.log.witnesses = vec![fixtures::witness_vkey()];
    config.log.quorum = 1;
    let operator = parse_public_key(&fixtures::public_key_hex()).unwrap();
    choose_trust(Some(&fixtures::page_policy()), &config.log, &operator).unwrap()
}

fn clear_storage() {
    web_sys::window()
        .unwrap()
        .local_storage()
        .unwrap()
        .unwrap()
        .clear()
        .unwrap();
}

fn grow(backend: &FakeBackend, records: u8) {
    let mut state = backend.state.borrow_mut();
    for _ in 0..records {
        let n = state.log.size() as u8;
        state.log.append(vec![n; 8]);
    }
}

/// Serves a checkpoint of `size` records with `root` (cosigned as genuine).
fn serve(backend: &FakeBackend, size: u64, root: Hash) {
    backend.state.borrow_mut().checkpoint_note = Some(FixtureLog::checkpoint_of(size, &root, true));
}

fn genuine(backend: &FakeBackend) {
    backend.state.borrow_mut().checkpoint_note = None;
}

async fn fetch(
    backend: &FakeBackend,
    trust: &RecordTrust,
) -> Result<CheckedCheckpoint, RecordProblem> {
    cosigned_checkpoint(backend, trust).await
}

#[wasm_bindgen_test]
async fn the_keeper_accepts_growth_and_refuses_rollbacks_and_forks_across_reloads() {
    clear_storage();
    let backend = FakeBackend::new(100, &[fixtures::LOSE], 5000);
    let trust = trust(&backend);
    grow(&backend, 3);
    assert_eq!(fetch(&backend, &trust).await.unwrap().size, 3);
    // Grown and consistent: accepted, and kept in place of the first.
    grow(&backend, 2);
    let five = fetch(&backend, &trust).await.unwrap();
    assert_eq!(five.size, 5);
    let kept = load_keeper(&trust.log);
    assert_eq!(kept.kept.map(|k| (k.size, k.root)), Some((5, five.root)));
    assert!(!kept.forked);
    // The same one again changes nothing.
    assert_eq!(fetch(&backend, &trust).await.unwrap(), five);

    // Not cosigned: refused, yet no fork (the record is simply not proved).
    let bare = FixtureLog::checkpoint_of(5, &five.root, false);
    backend.state.borrow_mut().checkpoint_note = Some(bare);
    assert_eq!(
        fetch(&backend, &trust).await,
        Err(RecordProblem::BadCheckpoint)
    );
    assert!(!load_keeper(&trust.log).forked);

    // A grown checkpoint whose root the log's consistency proof does not
    // reach: a bad proof.
    grow(&backend, 1);
    let mut other = backend.state.borrow().log.root(6);
    other.0[0] ^= 1;
    serve(&backend, 6, other);
    assert_eq!(
        fetch(&backend, &trust).await,
        Err(RecordProblem::Fork(Fork::BadProof))
    );
    // Refused for good, after a reload too: the fork is kept.
    assert!(load_keeper(&trust.log).forked);
    genuine(&backend);
    assert_eq!(
        fetch(&backend, &trust).await,
        Err(RecordProblem::Fork(Fork::SeenBefore))
    );

    // A browser that kept size 5: a rollback to 4 is refused.
    clear_storage();
    serve(&backend, 5, five.root);
    fetch(&backend, &trust).await.unwrap();
    let four = backend.state.borrow().log.root(4);
    serve(&backend, 4, four);
    assert_eq!(
        fetch(&backend, &trust).await,
        Err(RecordProblem::Fork(Fork::Rollback))
    );

    // Same size, another root: refused.
    clear_storage();
    serve(&backend, 5, five.root);
    fetch(&backend, &trust).await.unwrap();
    let mut forked = five.root;
    forked.0[31] ^= 1;
    serve(&backend, 5, forked);
    assert_eq!(
        fetch(&backend, &trust).await,
        Err(RecordProblem::Fork(Fork::OtherRoot))
    );

    // What is kept survives a reload: the stored checkpoint alone (no page
    // state) refuses the rollback.
    clear_storage();
    serve(&backend, 5, five.root);
    fetch(&backend, &trust).await.unwrap();
    let stored = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    let key = format!("eldorado.checkpoint.{}", trust.log.vkey());
    let saved = stored
        .get_item(&key)
        .unwrap()
        .expect("kept in localStorage");
    clear_storage();
    stored.set_item(&key, &saved).unwrap();
    serve(&backend, 4, four);
    assert_eq!(
        fetch(&backend, &trust).await,
        Err(RecordProblem::Fork(Fork::Rollback))
    );
}

#[wasm_bindgen_test]
async fn a_ticket_says_it_is_on_the_public_record_once_proved() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the record's proof", || {
        app.game()
            .ticket()
            .is_some_and(|t| t.record == RecordState::OnRecord)
    })
    .await;
    wait_for("the badge", || {
        text(&root, ".eld-badge-label") == "✓ Vérifié — inscrit au registre public"
    })
    .await;
    assert!(backend.state.borrow().checkpoints_served >= 2);
}

#[wasm_bindgen_test]
async fn a_block_whose_commitment_is_not_on_the_record_is_not_bought_from() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    backend.state.borrow_mut().drop_commitments_from_log = true;
    // Something else is logged, so checkpoints are served.
    grow(&backend, 1);
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-play");
    wait_for("the wait for the record said", || {
        matches!(app.game().notice(), Some(Notice::AwaitingRecord))
    })
    .await;
    assert_eq!(
        query(&root, ".eld-notice")
            .get_attribute("data-kind")
            .as_deref(),
        Some("record")
    );
    wait_for("the refusal", || {
        matches!(app.game().notice(), Some(Notice::Rejected(_)))
    })
    .await;
    assert_eq!(app.game().phase(), &Phase::Ready);
    assert!(
        backend.state.borrow().sales.is_empty(),
        "nothing was bought"
    );
    let notice = text(&root, ".eld-notice-text");
    assert!(
        notice.contains("n'est pas prouvé au registre public"),
        "{notice}"
    );
}

#[wasm_bindgen_test]
async fn a_sale_never_logged_is_refused_before_anything_of_it_shows() {
    let backend = FakeBackend::new(100, &[fixtures::WIN_2], 5000);
    backend.state.borrow_mut().drop_sales_from_log = true;
    let (root, app) = mount(&backend, Lang::Fr);
    ready(&app).await;
    click(&root, ".eld-play");
    // Watched until the refusal: the winning ticket never shows, not even
    // while its record is awaited.
    let mut shown = false;
    wait_for("the refusal", || {
        shown |= app.game().ticket().is_some();
        matches!(app.game().notice(), Some(Notice::Rejected(_)))
    })
    .await;
    assert!(!shown, "nothing of the sale was shown");
    assert_eq!(backend.state.borrow().sales.len(), 1, "bought and paid");
    assert_eq!(app.game().phase(), &Phase::Ready);
    let notice = text(&root, ".eld-notice-text");
    assert!(
        notice.contains("« inscrit au registre public »") && notice.contains("n'est pas affiché"),
        "{notice}"
    );
    assert_eq!(
        query(&root, ".eld-notice")
            .get_attribute("data-reason")
            .as_deref(),
        Some("sale: not proved on the public record in time")
    );
}
