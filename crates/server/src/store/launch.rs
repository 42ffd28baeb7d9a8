//! The launch-code rules, for every backend: a code opens one session, once,
//! before it expires.

pub use super::tx::{LaunchRecord, LaunchTx};
use super::{wallet, NewPlayer, NewSession, PlayerKind, PlayerRecord, SessionOpened, StoreResult};
use eldorado_api::LaunchMode;

/// A launch code to record: only the SHA-256 of the code.
#[derive(Clone, Debug)]
pub struct NewLaunch {
    pub code_hash: [u8; 32],
    /// The operator's player (for a demo launch: who asked for it).
    pub player_id: String,
    pub mode: LaunchMode,
    pub lang: String,
    pub lobby_url: Option<String>,
    pub created_at_ms: u64,
    pub expires_at_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchRedeemed {
    /// The session is open for this player.
    Opened {
        player: PlayerRecord,
        lobby_url: Option<String>,
        /// The player's oldest sessions it ended (see `SessionOpened`).
        ended: Vec<[u8; 32]>,
    },
    /// Unknown, already used or expired (nothing was written), or a demo
    /// code on a server that no longer makes demo players (used up now).
    Invalid,
    /// The player id now belongs to a player of another kind; the code is
    /// used up and no session was opened.
    OtherKind(PlayerKind),
}

/// Uses up the code and opens the session of its player: the operator's
/// player (created if new) for a real-money launch, `demo_player` for a
/// demo launch (`None`: demo launches are refused). The session is stamped
/// at `session.created_at_ms`, which is also the time the expiry is
/// checked against.
pub fn redeem<T: LaunchTx + ?Sized>(
    tx: &mut T,
    code_hash: &[u8; 32],
    session: &NewSession,
    demo_player: Option<&NewPlayer<'_>>,
) -> StoreResult<LaunchRedeemed> {
    let Some(launch) = tx.take_launch(code_hash, session.created_at_ms)? else {
        return Ok(LaunchRedeemed::Invalid);
    };
    let operator_player = NewPlayer {
        id: &launch.player_id,
        kind: PlayerKind::Operator,
        balance_cents: 0,
        reuse: true,
    };
    let player = match (launch.mode, demo_player) {
        (LaunchMode::Real, _) => &operator_player,
        (LaunchMode::Demo, Some(demo)) => demo,
        (LaunchMode::Demo, None) => return Ok(LaunchRedeemed::Invalid),
    };
    match wallet::open_session(tx, player, session)? {
        SessionOpened::Opened { player, ended } => {
            if let Some(lobby) = &launch.lobby_url {
                tx.set_session_lobby(&session.token_hash, lobby)?;
            }
            Ok(LaunchRedeemed::Opened {
                player,
                lobby_url: launch.lobby_url,
                ended,
            })
        }
        SessionOpened::OtherKind(kind) => Ok(LaunchRedeemed::OtherKind(kind)),
        SessionOpened::Taken => Err(super::corrupt("a new demo player id was already taken")),
    }
}
