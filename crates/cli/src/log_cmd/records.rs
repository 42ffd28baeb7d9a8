//! Every record read and its operator signature checked. A full log of a
//! sold-out block is 400,000 Ed25519 verifications: they are spread over
//! the machine's cores.

use ed25519_dalek::VerifyingKey;
use eldorado_engine::transparency::LogEntry;

/// A record read, or why it is not a valid record of this operator.
pub type Record = Result<LogEntry, String>;

/// Below this many records per thread, a thread costs more than it saves.
const MIN_PER_THREAD: usize = 2_000;

pub fn read_record(leaf: &[u8], operator: &VerifyingKey) -> Record {
    let entry = LogEntry::parse(leaf).map_err(|e| format!("does not parse: {e}"))?;
    entry
        .verify(operator)
        .map_err(|e| format!("operator signature: {e}"))?;
    Ok(entry)
}

/// [`read_record`] of each leaf, in order.
pub fn read_records(leaves: &[Vec<u8>], operator: &VerifyingKey) -> Vec<Record> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = cores.min(leaves.len() / MIN_PER_THREAD).max(1);
    if threads == 1 {
        return leaves.iter().map(|l| read_record(l, operator)).collect();
    }
    let chunk = leaves.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = leaves
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    part.iter()
                        .map(|l| read_record(l, operator))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| match worker.join() {
                Ok(records) => records,
                // Reading a record does not panic; if it ever did, the
                // panic is the report.
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}
