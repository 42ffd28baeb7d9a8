//! Block work (building a tree, generating a block) runs on a few threads
//! at a time, not one thread per block: each holds a pooled database
//! connection while it works, and a thread per block could take every
//! connection of a small `--pool-size` for longer than a caller waits for
//! one (a server starting beside others once failed so, reading twelve
//! blocks' leaves at once on six connections).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Most block jobs at once, however many cores: enough to use them, few
/// enough to leave connections to everything else.
const MOST: usize = 4;

/// How many jobs run at once on this machine.
pub fn workers() -> usize {
    std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .clamp(1, MOST)
}

/// `job` for every item, at most `workers` at a time; the results in the
/// items' order. The first error found is returned once every started job
/// has ended (no job is started after it); a panicking job is `panicked()`.
pub fn run<T: Sync, R: Send, E: Send>(
    items: &[T],
    workers: usize,
    job: impl Fn(&T) -> Result<R, E> + Sync,
    panicked: impl FnOnce() -> E,
) -> Result<Vec<R>, E> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Result<R, E>>>> =
        Mutex::new(items.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        let threads: Vec<_> = (0..workers.clamp(1, items.len().max(1)))
            .map(|_| {
                scope.spawn(|| loop {
                    if failed.load(Ordering::SeqCst) {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(item) = items.get(i) else {
                        return;
                    };
                    let result = job(item);
                    failed.fetch_or(result.is_err(), Ordering::SeqCst);
                    results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(result);
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join()).collect::<Vec<_>>()
    })
    .into_iter()
    .collect::<Result<Vec<()>, _>>()
    .map_err(|_| panicked())?;
    let mut done = Vec::with_capacity(items.len());
    for result in results.into_inner().unwrap_or_else(|p| p.into_inner()) {
        match result {
            Some(Ok(value)) => done.push(value),
            Some(Err(e)) => return Err(e),
            // Not started: only after an error, returned above or below.
            None => {}
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_more_than_the_workers_at_once_and_results_in_order() {
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        // The first three jobs wait for each other: three run at once.
        let first = std::sync::Barrier::new(3);
        let items: Vec<u64> = (0..12).collect();
        let out = run(
            &items,
            3,
            |&n| {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                if n < 3 {
                    first.wait();
                }
                running.fetch_sub(1, Ordering::SeqCst);
                Ok::<_, String>(n * 10)
            },
            || "panicked".to_owned(),
        )
        .unwrap();
        assert_eq!(out, items.iter().map(|n| n * 10).collect::<Vec<_>>());
        assert_eq!(most.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn an_error_stops_the_rest_and_is_returned() {
        let started = AtomicUsize::new(0);
        let items: Vec<u64> = (0..50).collect();
        let out = run(
            &items,
            1,
            |&n| {
                started.fetch_add(1, Ordering::SeqCst);
                if n == 3 {
                    Err(format!("block {n}"))
                } else {
                    Ok(n)
                }
            },
            || "panicked".to_owned(),
        );
        assert_eq!(out, Err("block 3".to_owned()));
        assert_eq!(
            started.load(Ordering::SeqCst),
            4,
            "nothing started after the error"
        );
    }

    #[test]
    fn a_panicking_job_is_an_error() {
        let out = run(
            &[1, 2],
            2,
            |&n: &u8| if n == 2 { panic!("job {n}") } else { Ok(n) },
            || "panicked".to_owned(),
        );
        assert_eq!(out, Err("panicked".to_owned()));
    }

    #[test]
    fn no_items_no_work() {
        let out = run(&[] as &[u8], 4, |&n| Ok::<_, ()>(n), || ());
        assert_eq!(out, Ok(Vec::new()));
    }
}
