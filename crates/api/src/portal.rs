//! The messages between the game page and the operator's portal page that
//! frames it (`window.postMessage`). The page posts only to the portal
//! origins of `GET /api/config` and accepts only from its parent window on
//! one of those origins.

use serde::{Deserialize, Serialize};

/// What the page tells its parent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum PageMessage {
    /// The page has its session and listens for the parent's messages.
    Ready,
    /// The player's balance, on load and after every verified change.
    Balance { balance_cents: u64 },
    /// A ticket was bought (the stake is debited).
    RoundStarted { sale_id: u64, stake_cents: u64 },
    /// The ticket is fully revealed; `verified` is false when the page's
    /// check of the signed sale failed (the page then shows a warning).
    RoundEnded {
        sale_id: u64,
        prize_cents: u64,
        verified: bool,
    },
    /// A purchase was refused for funds: the portal may open its cashier.
    InsufficientFunds,
    /// Any other refusal, with its API error code (e.g. `SOLD_OUT`).
    Error { code: String },
    /// The page's content height in CSS pixels, so the portal sizes the iframe.
    Resize { height: u64 },
}

/// What the parent may ask of the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ParentMessage {
    Mute,
    Unmute,
    /// Read the balance again (after a deposit at the cashier).
    RefreshBalance,
    /// End the session and show nothing more.
    Close,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, to_value};

    #[test]
    fn page_messages_have_the_documented_shape() {
        let cases = [
            (PageMessage::Ready, json!({"type": "ready"})),
            (
                PageMessage::Balance {
                    balance_cents: 4900,
                },
                json!({"type": "balance", "balance_cents": 4900}),
            ),
            (
                PageMessage::RoundStarted {
                    sale_id: 17,
                    stake_cents: 100,
                },
                json!({"type": "round_started", "sale_id": 17, "stake_cents": 100}),
            ),
            (
                PageMessage::RoundEnded {
                    sale_id: 17,
                    prize_cents: 200,
                    verified: true,
                },
                json!({"type": "round_ended", "sale_id": 17, "prize_cents": 200, "verified": true}),
            ),
            (
                PageMessage::InsufficientFunds,
                json!({"type": "insufficient_funds"}),
            ),
            (
                PageMessage::Error {
                    code: "SOLD_OUT".into(),
                },
                json!({"type": "error", "code": "SOLD_OUT"}),
            ),
            (
                PageMessage::Resize { height: 812 },
                json!({"type": "resize", "height": 812}),
            ),
        ];
        for (message, wire) in cases {
            assert_eq!(to_value(&message).unwrap(), wire);
            assert_eq!(
                serde_json::from_value::<PageMessage>(wire).unwrap(),
                message
            );
        }
    }

    #[test]
    fn parent_messages_have_the_documented_shape() {
        for (message, kind) in [
            (ParentMessage::Mute, "mute"),
            (ParentMessage::Unmute, "unmute"),
            (ParentMessage::RefreshBalance, "refresh_balance"),
            (ParentMessage::Close, "close"),
        ] {
            assert_eq!(to_value(message).unwrap(), json!({"type": kind}));
            assert_eq!(
                serde_json::from_value::<ParentMessage>(json!({"type": kind})).unwrap(),
                message
            );
        }
        assert!(serde_json::from_value::<ParentMessage>(json!({"type": "credit"})).is_err());
    }
}
