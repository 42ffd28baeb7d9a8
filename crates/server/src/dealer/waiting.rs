//! The sale requests waiting for their purchases' deals, each woken by the
//! deal of its own purchase on this server, so that a deal wakes only its
//! buyer instead of every request waiting.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use tokio::sync::oneshot;

#[derive(Default)]
pub struct Waiting {
    by_purchase: Mutex<HashMap<u64, Vec<oneshot::Sender<()>>>>,
}

impl Waiting {
    /// Waits for `purchase_id` from now on: a deal committed after this
    /// call wakes the returned entry.
    pub fn enter(&self, purchase_id: u64) -> Entry<'_> {
        let (tx, rx) = oneshot::channel();
        self.lock().entry(purchase_id).or_default().push(tx);
        Entry {
            waiting: self,
            purchase_id,
            woken: Some(rx),
        }
    }

    /// Wakes the requests waiting for these purchases, now dealt.
    pub fn dealt(&self, purchase_ids: impl IntoIterator<Item = u64>) {
        let mut by_purchase = self.lock();
        for id in purchase_ids {
            for tx in by_purchase.remove(&id).into_iter().flatten() {
                // Its request may have gone meanwhile.
                let _ = tx.send(());
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Vec<oneshot::Sender<()>>>> {
        // The map stays whole whatever panicked while it was held.
        self.by_purchase
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

/// One request's wait; leaving (answered, timed out or dropped with its
/// request) takes it out of the map.
pub struct Entry<'a> {
    waiting: &'a Waiting,
    purchase_id: u64,
    woken: Option<oneshot::Receiver<()>>,
}

impl Entry<'_> {
    /// Until this server deals the purchase; pending for good once it did
    /// (the caller then looks at the store and stops waiting).
    pub async fn woken(&mut self) {
        match self.woken.as_mut() {
            Some(rx) => {
                let _ = rx.await;
                self.woken = None;
            }
            None => std::future::pending().await,
        }
    }
}

impl Drop for Entry<'_> {
    fn drop(&mut self) {
        self.woken = None;
        let mut by_purchase = self.waiting.lock();
        if let Some(waiters) = by_purchase.get_mut(&self.purchase_id) {
            waiters.retain(|tx| !tx.is_closed());
            if waiters.is_empty() {
                by_purchase.remove(&self.purchase_id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    // Paused: the wait for purchase 8 below passes at once, yet lasts a
    // second for tokio.
    #[tokio::test(start_paused = true)]
    async fn a_deal_wakes_its_own_buyers_only() {
        let waiting = Waiting::default();
        let mut first = waiting.enter(7);
        let mut retry = waiting.enter(7);
        let mut other = waiting.enter(8);
        waiting.dealt([7]);
        first.woken().await;
        retry.woken().await;
        let not_woken = tokio::time::timeout(Duration::from_secs(1), other.woken()).await;
        assert!(not_woken.is_err(), "purchase 8 is not dealt");
        drop((first, retry));
        assert_eq!(waiting.len(), 1, "only purchase 8 is still waited for");
        drop(other);
        assert_eq!(
            waiting.len(),
            0,
            "a request that leaves leaves nothing behind"
        );
    }

    #[tokio::test]
    async fn one_request_leaving_keeps_the_others_waiting() {
        let waiting = Waiting::default();
        let gone = waiting.enter(3);
        let mut staying = waiting.enter(3);
        drop(gone);
        waiting.dealt([3]);
        staying.woken().await;
    }
}
