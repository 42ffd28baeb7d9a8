//! The words of a game launched from an operator's portal.

use super::Lang;

impl Lang {
    /// The launch link's code was refused (used, late or unknown).
    pub fn launch_invalid(self) -> &'static str {
        match self {
            Lang::Fr => "Ce lien de jeu n'est plus valable : il a déjà servi ou a expiré. Relancez le jeu depuis le site de l'opérateur.",
            Lang::En => "This game link is no longer valid: it was already used or has expired. Start the game again from the operator's site.",
        }
    }

    pub fn back_to_lobby(self) -> &'static str {
        match self {
            Lang::Fr => "Retour au lobby",
            Lang::En => "Back to the lobby",
        }
    }

    /// The header's link back to the portal's lobby.
    pub fn lobby(self) -> &'static str {
        "Lobby"
    }

    /// Shown, alone, after the portal closed the game.
    pub fn session_closed(self) -> &'static str {
        match self {
            Lang::Fr => "La partie est terminée. Vous pouvez fermer cette fenêtre.",
            Lang::En => "The game has ended. You may close this window.",
        }
    }
}
