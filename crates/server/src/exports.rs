//! Block disclosures served from files. A finished block never changes, so
//! its export is written once to `DATA/exports/` (holding a store reader
//! only for as long as the disk takes) and then every download streams that
//! file: a slow client holds a file handle, never one of the few store
//! connections. Each download has a deadline (`--export-deadline-secs`).

use crate::error::ApiError;
use crate::store::{BlockRecord, Store};
use axum::body::Bytes;
use eldorado_engine::export::{ExportHeader, ExportRow, FORMAT};
use std::future::Future;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio_stream::Stream;

/// Bytes read from the file per chunk sent.
const CHUNK: usize = 256 * 1024;

pub struct Exports {
    dir: PathBuf,
    /// One export written at a time: a second request for the same block
    /// waits and then finds the file.
    writing: Mutex<()>,
}

impl Exports {
    pub fn new(data_dir: &Path) -> Exports {
        Exports {
            dir: data_dir.join("exports"),
            writing: Mutex::new(()),
        }
    }

    fn path(&self, block: u64) -> PathBuf {
        self.dir.join(format!("block-{block}.jsonl"))
    }

    /// The export file of a finished block, written first if missing
    /// (blocking: whole seconds for a 400,000-ticket block).
    pub fn file(&self, store: &dyn Store, record: &BlockRecord) -> Result<PathBuf, ApiError> {
        let path = self.path(record.id());
        if path.exists() {
            return Ok(path);
        }
        let _one_writer = self.writing.lock().unwrap_or_else(|p| p.into_inner());
        if path.exists() {
            return Ok(path);
        }
        crate::data_dir::create_private_dir(&self.dir).map_err(ApiError::internal)?;
        // Written aside and renamed: a crash never leaves a short export
        // under the final name.
        let partial = self
            .dir
            .join(format!("block-{}.jsonl.partial", record.id()));
        write_export(store, record, &partial).inspect_err(|_| {
            // Best effort: a leftover partial file is overwritten next time.
            let _ignored = std::fs::remove_file(&partial);
        })?;
        std::fs::rename(&partial, &path).map_err(ApiError::internal)?;
        tracing::info!(block = record.id(), path = %path.display(), "block export written");
        Ok(path)
    }
}

/// The first line of a block's export: its commitment, as signed.
pub fn header(record: &BlockRecord) -> ExportHeader {
    let c = &record.signed.commitment;
    ExportHeader {
        format: FORMAT.to_owned(),
        block: c.block,
        stake_cents: c.stake_cents,
        tickets: c.tickets,
        money: c.money,
        root: c.root,
        prize_table: c.prize_table,
        params: record.params.clone(),
        public_key: Some(record.signed.public_key),
        signature: Some(record.signed.signature),
    }
}

fn write_export(store: &dyn Store, record: &BlockRecord, path: &Path) -> Result<(), ApiError> {
    let c = &record.signed.commitment;
    let header = header(record);
    // Owner only, like every file of the data directory.
    let file = crate::data_dir::create_private(path).map_err(ApiError::internal)?;
    let mut out = std::io::BufWriter::with_capacity(CHUNK, file);
    serde_json::to_writer(&mut out, &header).map_err(ApiError::internal)?;
    out.write_all(b"\n").map_err(ApiError::internal)?;
    let mut failure: Option<String> = None;
    let mut rows = 0u64;
    store.for_each_ticket(record.id(), &mut |ticket, leaf| {
        let written = serde_json::to_writer(&mut out, &ExportRow { ticket, leaf })
            .map_err(|e| e.to_string())
            .and_then(|()| out.write_all(b"\n").map_err(|e| e.to_string()));
        rows += 1;
        match written {
            Ok(()) => true,
            Err(e) => {
                failure = Some(e);
                false
            }
        }
    })?;
    if let Some(e) = failure {
        return Err(ApiError::internal(format!("writing an export: {e}")));
    }
    if rows != u64::from(c.tickets) {
        return Err(ApiError::internal(format!(
            "block {} has {rows} stored tickets of {}",
            c.block, c.tickets
        )));
    }
    let file = out.into_inner().map_err(ApiError::internal)?;
    file.sync_all().map_err(ApiError::internal)?;
    Ok(())
}

/// The file's bytes as a body stream that ends in an error (so the
/// connection is cut) once `deadline` has passed.
pub async fn stream(
    path: &Path,
    deadline: Duration,
) -> Result<impl Stream<Item = std::io::Result<Bytes>> + Send + 'static, ApiError> {
    let file = tokio::fs::File::open(path)
        .await
        .map_err(ApiError::internal)?;
    Ok(Deadline {
        inner: tokio_util::io::ReaderStream::with_capacity(file, CHUNK),
        ends_at: tokio::time::Instant::now() + deadline,
        sleep: Box::pin(tokio::time::sleep(deadline)),
        expired: false,
    })
}

struct Deadline<S> {
    inner: S,
    ends_at: tokio::time::Instant,
    /// Wakes the stream when time is up even if the file read is pending.
    sleep: Pin<Box<tokio::time::Sleep>>,
    expired: bool,
}

impl<S: Stream<Item = std::io::Result<Bytes>> + Unpin> Stream for Deadline<S> {
    type Item = std::io::Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.expired {
            return Poll::Ready(None);
        }
        // The clock is read, not only the timer, which fires on its next tick.
        let late = tokio::time::Instant::now() >= self.ends_at;
        if late || self.sleep.as_mut().poll(cx).is_ready() {
            self.expired = true;
            tracing::warn!("a block export passed its deadline and was cut off");
            return Poll::Ready(Some(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the export deadline has passed",
            ))));
        }
        Pin::new(&mut self.inner).poll_next(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio_stream::StreamExt;

    #[tokio::test]
    async fn a_download_is_cut_off_at_its_deadline() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("export.jsonl");
        std::fs::write(&path, vec![b'x'; 3 * CHUNK]).unwrap();

        let whole: Vec<_> = stream(&path, Duration::from_secs(600))
            .await
            .unwrap()
            .collect()
            .await;
        let bytes: usize = whole.iter().map(|c| c.as_ref().unwrap().len()).sum();
        assert_eq!(bytes, 3 * CHUNK);

        let mut late = Box::pin(stream(&path, Duration::ZERO).await.unwrap());
        let first = late.next().await.unwrap();
        assert_eq!(first.unwrap_err().kind(), std::io::ErrorKind::TimedOut);
        assert!(late.next().await.is_none());
    }
}
