//! The commitments seen from the server, kept in `localStorage` so that a
//! reload still catches an operator who signs a second, different
//! commitment for a block already announced.

use super::Inner;
use crate::api::BlockList;
use crate::commitments::{CommitmentBook, Equivocation};
use crate::dom::{load_pref, save_pref};
use crate::js_value;
use crate::operator_key::OperatorKey;
use eldorado_engine::SignedCommitment;

/// Scoped by operator key: block ids are one operator's numbering.
fn storage_key(operator: &OperatorKey) -> String {
    format!("eldorado.commitments.{}", operator.key.to_hex())
}

impl Inner {
    /// Reads the book saved for this operator (an unreadable one is empty).
    pub(super) fn load_book(&self, operator: &OperatorKey) {
        let saved: Vec<SignedCommitment> = load_pref(&storage_key(operator))
            .and_then(|text| js_sys::JSON::parse(&text).ok())
            .and_then(|js| js_value::read(&js).ok())
            .unwrap_or_default();
        self.book
            .replace(CommitmentBook::from_saved(saved, &operator.key));
    }

    /// Records the open and pending commitments just listed, and saves the
    /// book; returns the first equivocation found.
    pub(super) fn remember_blocks(&self, list: &BlockList) -> Result<(), Equivocation> {
        let Some(operator) = self.operator.get() else {
            return Ok(());
        };
        let found = self
            .book
            .borrow_mut()
            .remember_all(list.blocks.iter().map(|b| &b.commitment), &operator.key);
        let saved = js_value::to_json(&self.book.borrow().saved());
        if let Ok(text) = saved {
            save_pref(&storage_key(&operator), Some(&text));
        }
        found
    }
}
