//! The cap on a player's live sessions (`--max-sessions-per-player`): every
//! way of opening a session ends the player's oldest beyond it, in the same
//! transaction, and remembers them for a while so that their pages are told
//! why.

use crate::{Backend, START_MS};
use eldorado_api::LaunchMode;
use eldorado_server::store::launch::{LaunchRedeemed, NewLaunch};
use eldorado_server::store::{NewPlayer, NewSession, PlayerKind, SessionOpened, Store};

const HOUR_MS: u64 = 3_600_000;

fn ann() -> NewPlayer<'static> {
    player("ann")
}

fn player(id: &'static str) -> NewPlayer<'static> {
    NewPlayer {
        id,
        kind: PlayerKind::Operator,
        balance_cents: 0,
        reuse: true,
    }
}

fn session(token: u8, at_ms: u64, max_per_player: u32) -> NewSession {
    NewSession {
        token_hash: [token; 32],
        created_at_ms: at_ms,
        expires_at_ms: at_ms + HOUR_MS,
        max_per_player,
    }
}

/// Opens a session and returns the token hashes it ended.
fn open(store: &dyn Store, who: &NewPlayer<'_>, new: &NewSession) -> Vec<[u8; 32]> {
    match store.open_session(who, new).unwrap() {
        SessionOpened::Opened { ended, .. } => ended,
        other => panic!("{other:?}"),
    }
}

fn live(store: &dyn Store, token: u8) -> bool {
    store.session(&[token; 32]).unwrap().is_some()
}

/// Opening beyond the cap ends the oldest first, remembers it until it
/// would have expired, and leaves other players alone.
pub fn opening_beyond_the_cap_ends_the_oldest_sessions(backend: &impl Backend) {
    let store = backend.open();
    for token in 1..=3 {
        let ended = open(
            &*store,
            &ann(),
            &session(token, START_MS + u64::from(token), 3),
        );
        assert!(ended.is_empty(), "{token}: {ended:?}");
    }
    assert!(open(&*store, &player("bob"), &session(50, START_MS + 10, 3)).is_empty());
    assert_eq!(
        open(&*store, &ann(), &session(4, START_MS + 4, 3)),
        vec![[1; 32]]
    );
    assert_eq!(
        open(&*store, &ann(), &session(5, START_MS + 5, 3)),
        vec![[2; 32]]
    );
    assert_eq!(
        (1..=5).map(|t| live(&*store, t)).collect::<Vec<_>>(),
        [false, false, true, true, true]
    );
    assert_eq!(store.live_sessions(Some("ann"), START_MS + 5).unwrap(), 3);
    assert!(live(&*store, 50), "another player's session stays");
    // Remembered until each would have expired; live ones are not.
    assert_eq!(
        store.evicted_session(&[1; 32]).unwrap(),
        Some(START_MS + 1 + HOUR_MS)
    );
    assert_eq!(
        store.evicted_session(&[2; 32]).unwrap(),
        Some(START_MS + 2 + HOUR_MS)
    );
    assert_eq!(store.evicted_session(&[3; 32]).unwrap(), None);
    assert_eq!(store.evicted_session(&[9; 32]).unwrap(), None);
    // The sweep forgets them with the expired sessions.
    assert_eq!(
        store
            .delete_expired_sessions(START_MS + 1 + HOUR_MS)
            .unwrap(),
        0
    );
    assert_eq!(store.evicted_session(&[1; 32]).unwrap(), None);
    assert!(store.evicted_session(&[2; 32]).unwrap().is_some());
}

/// Sessions opened in the same millisecond are ended by token hash, the
/// smallest first; the new session is never the one ended, even when its
/// server's clock is behind the others'; expired sessions do not count.
pub fn the_sessions_ended_are_the_same_on_every_backend(backend: &impl Backend) {
    let store = backend.open();
    for token in [12, 10, 11] {
        assert!(open(&*store, &ann(), &session(token, START_MS, 3)).is_empty());
    }
    assert_eq!(
        open(&*store, &ann(), &session(13, START_MS, 3)),
        vec![[10; 32]]
    );
    // A clock 10 s behind: the new session is the oldest, and stays.
    assert_eq!(
        open(&*store, &ann(), &session(9, START_MS - 10_000, 3)),
        vec![[11; 32]]
    );
    assert!(live(&*store, 9) && live(&*store, 12) && live(&*store, 13));
    // An hour later all have expired: nothing is ended, nothing remembered.
    let later = START_MS + HOUR_MS;
    for token in [20, 21] {
        assert!(open(&*store, &ann(), &session(token, later, 3)).is_empty());
    }
    assert!(live(&*store, 12), "an expired session is left to the sweep");
    assert_eq!(store.live_sessions(Some("ann"), later).unwrap(), 2);
}

/// A lower cap than before ends every session beyond it at the next
/// opening, but only as many as the cap are remembered per player.
pub fn a_lower_cap_ends_every_session_beyond_it(backend: &impl Backend) {
    let store = backend.open();
    for token in 1..=6 {
        assert!(open(
            &*store,
            &ann(),
            &session(token, START_MS + u64::from(token), 20)
        )
        .is_empty());
    }
    let ended = open(&*store, &ann(), &session(7, START_MS + 7, 2));
    let mut sorted = ended.clone();
    sorted.sort();
    assert_eq!(sorted, (1..=5).map(|t| [t; 32]).collect::<Vec<_>>());
    assert_eq!(store.live_sessions(Some("ann"), START_MS + 7).unwrap(), 2);
    assert!(live(&*store, 6) && live(&*store, 7));
    let remembered: Vec<u8> = (1..=5)
        .filter(|t| store.evicted_session(&[*t; 32]).unwrap().is_some())
        .collect();
    assert_eq!(remembered, [4, 5], "the most recent of those ended");
    // Each later opening remembers its own, the oldest remembered go.
    assert_eq!(
        open(&*store, &ann(), &session(8, START_MS + 8, 2)),
        vec![[6; 32]]
    );
    let remembered: Vec<u8> = (1..=7)
        .filter(|t| store.evicted_session(&[*t; 32]).unwrap().is_some())
        .collect();
    assert_eq!(remembered, [5, 6]);
}

/// A launch code's session counts too, and ends the oldest.
pub fn a_launched_session_ends_the_oldest_beyond_the_cap(backend: &impl Backend) {
    let store = backend.open();
    assert!(open(&*store, &ann(), &session(1, START_MS, 1)).is_empty());
    store
        .insert_launch(&NewLaunch {
            code_hash: [7; 32],
            player_id: "ann".to_owned(),
            mode: LaunchMode::Real,
            lang: "fr".to_owned(),
            lobby_url: None,
            created_at_ms: START_MS,
            expires_at_ms: START_MS + 60_000,
        })
        .unwrap();
    let redeemed = store
        .redeem_launch(&[7; 32], &session(2, START_MS + 1, 1), None)
        .unwrap();
    assert!(
        matches!(&redeemed, LaunchRedeemed::Opened { ended, .. } if ended == &[[1; 32]]),
        "{redeemed:?}"
    );
    assert!(!live(&*store, 1) && live(&*store, 2));
    assert!(store.evicted_session(&[1; 32]).unwrap().is_some());
}

/// Threads opening sessions of one player at once never leave more than
/// the cap live, and every session ended is reported by exactly one of them.
pub fn concurrent_openings_never_exceed_the_cap(backend: &impl Backend) {
    let store = backend.open();
    // The player exists, so each opening locks its row.
    assert!(open(&*store, &ann(), &session(1, START_MS, 3)).is_empty());
    let barrier = std::sync::Barrier::new(6);
    let ended: Vec<[u8; 32]> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..6u8)
            .map(|t| {
                let (store, barrier) = (&store, &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    (0..5u8)
                        .flat_map(|i| {
                            let token = 10 + t * 5 + i;
                            open(&**store, &ann(), &session(token, START_MS + 1, 3))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        threads
            .into_iter()
            .flat_map(|t| t.join().unwrap())
            .collect()
    });
    assert_eq!(store.live_sessions(Some("ann"), START_MS + 1).unwrap(), 3);
    let mut unique = ended.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ended.len(), "a session ended twice");
    assert_eq!(ended.len(), 31 - 3);
}
