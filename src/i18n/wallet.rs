//! The words of the operator's seamless wallet (`eldorado serve --wallet`).

use super::Lang;

impl Lang {
    /// A refusal that only a server paying from the operator's wallet gives,
    /// by its contract code; `None` for any other code.
    pub fn wallet_error(self, code: &str) -> Option<&'static str> {
        match (code, self) {
            ("WALLET_UNAVAILABLE", Lang::Fr) => Some(
                "Le portefeuille de votre opérateur n'a pas répondu : rien n'a été joué ni débité. Réessayez.",
            ),
            ("WALLET_UNAVAILABLE", Lang::En) => Some(
                "Your operator's wallet did not answer: nothing was played or charged. Try again.",
            ),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wallet_unavailable_is_told_in_both_languages() {
        for lang in [Lang::Fr, Lang::En] {
            let text = lang.wallet_error("WALLET_UNAVAILABLE").unwrap();
            assert_eq!(lang.api_error("WALLET_UNAVAILABLE"), text);
        }
        assert_eq!(Lang::En.wallet_error("SOLD_OUT"), None);
    }
}
