//! Test only: statements that fail or panic on demand, to test how the sale
//! desk and the block generator live through store faults. Armed on a
//! SQLite store's connections (`SqliteStore::faults`), so the store under
//! test is the real one.

use super::sqlite::SqliteStore;
use super::{StoreError, StoreResult};
use std::sync::Mutex;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    Fail,
    Panic,
}

/// Statement prefixes armed with a fault.
#[derive(Default)]
pub struct Faults(Mutex<Vec<(&'static str, Fault)>>);

impl Faults {
    /// Every statement starting with `prefix` meets `fault` from now on
    /// (`None`: works again).
    pub fn arm(&self, prefix: &'static str, fault: Option<Fault>) {
        let mut armed = self.0.lock().unwrap_or_else(|p| p.into_inner());
        armed.retain(|(p, _)| *p != prefix);
        if let Some(fault) = fault {
            armed.push((prefix, fault));
        }
    }

    pub(super) fn check(&self, sql: &str) -> StoreResult<()> {
        let armed = self.0.lock().unwrap_or_else(|p| p.into_inner());
        match armed.iter().find(|(prefix, _)| sql.starts_with(prefix)) {
            Some((_, Fault::Fail)) => Err(StoreError::backend(format!("{sql}: disk on fire"))),
            Some((_, Fault::Panic)) => panic!("{sql}: a bug in the store"),
            None => Ok(()),
        }
    }
}

impl SqliteStore {
    pub fn faults(&self) -> &Faults {
        &self.backend.faults
    }
}
