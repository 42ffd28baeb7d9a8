//! The words of the board's look and feel: turbo, uncovering by hand.

use super::Lang;

impl Lang {
    /// The toggle for a quicker reveal.
    pub fn turbo(self) -> &'static str {
        match self {
            Lang::Fr => "Turbo",
            Lang::En => "Turbo",
        }
    }

    /// The field of the last prize won.
    pub fn last_win(self) -> &'static str {
        match self {
            Lang::Fr => "Dernier gain",
            Lang::En => "Last win",
        }
    }

    /// The help button's name: it opens the rules at the paytable.
    pub fn help(self) -> &'static str {
        match self {
            Lang::Fr => "Aide : règles et gains",
            Lang::En => "Help: rules and prizes",
        }
    }

    /// Said by screen readers on the board: how to uncover columns early.
    pub fn uncover_hint(self) -> &'static str {
        match self {
            Lang::Fr => "Touchez ou glissez sur une colonne pour la découvrir ; au clavier, flèche droite ou Espace.",
            Lang::En => "Tap or drag across a column to uncover it; with the keyboard, Right arrow or Space.",
        }
    }

    /// The rules panel's page could not be fetched.
    pub fn rules_unavailable(self) -> &'static str {
        match self {
            Lang::Fr => "Les règles n'ont pas pu être chargées : refermez puis rouvrez ce panneau pour réessayer.",
            Lang::En => "The rules could not be loaded: close and open this panel again to try again.",
        }
    }
}
