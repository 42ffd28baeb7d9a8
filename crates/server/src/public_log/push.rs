//! Pushes each checkpoint this server signs to a witness, as C2SP
//! tlog-witness's `add-checkpoint` (`--witness-url URL`), and keeps the
//! cosignature it answers at once, as if the witness had posted it: a
//! purchase is proven on the record milliseconds after its pass, not at
//! the witness's next poll. A witness that answers 409 says which size it
//! cosigned last; the push is then made again from there, after taking
//! from its publication (`GET /cosignatures`) the cosignatures this
//! server did not get (a crash between its answer and our store).

use super::StoredHashes;
use crate::error::ApiError;
use crate::routes::log::accept_cosignature;
use crate::state::AppState;
use eldorado_api::{CosignatureSubmission, WitnessCosignatures};
use eldorado_engine::transparency::add_checkpoint_body;
use std::time::Duration;

/// Longest wait for one answer of a witness.
const TIMEOUT: Duration = Duration::from_secs(5);

/// Pushes every checkpoint signed, for good.
pub async fn push_checkpoints(state: AppState, url: String) {
    let client = match reqwest::Client::builder().timeout(TIMEOUT).build() {
        Ok(client) => client,
        Err(e) => {
            tracing::error!(error = %e, witness = %url, "cannot push to the witness");
            return;
        }
    };
    let base = url.trim_end_matches('/').to_owned();
    let mut signed = state.checkpoint_signed.subscribe();
    // The size the witness cosigned last, as far as this server knows.
    let mut known = 0;
    let mut failing = false;
    loop {
        let size = *signed.borrow_and_update();
        if size > known {
            match push(&state, &client, &base, known, size).await {
                Ok(cosigned) => {
                    known = cosigned;
                    if std::mem::take(&mut failing) {
                        tracing::info!(witness = %base, "the witness takes pushes again");
                    }
                }
                Err(e) => {
                    if !std::mem::replace(&mut failing, true) {
                        tracing::warn!(witness = %base, error = %e, "a push to the witness failed; its pull still cosigns");
                    }
                }
            }
        }
        if signed.changed().await.is_err() {
            return;
        }
    }
}

/// Pushes the checkpoint of `size` from `old`; on 409, once more from the
/// size the witness names. Returns the size it cosigned.
async fn push(
    state: &AppState,
    client: &reqwest::Client,
    base: &str,
    old: u64,
    size: u64,
) -> Result<u64, String> {
    let mut old = old;
    for _ in 0..2 {
        let (note, body) = {
            let (state, from) = (state.clone(), old);
            state
                .blocking(move |s| request(s, from, size))
                .await
                .map_err(|e| e.to_string())?
        };
        let answer = client
            .post(format!("{base}/add-checkpoint"))
            .body(body)
            .send()
            .await
            .map_err(|e| e.to_string())?;
        let status = answer.status();
        let text = answer.text().await.map_err(|e| e.to_string())?;
        match status.as_u16() {
            200 => {
                keep(state, &note, text.lines().map(|l| format!("{l}\n"))).await?;
                return Ok(size);
            }
            409 => {
                let latest: u64 = text
                    .trim()
                    .parse()
                    .map_err(|_| format!("409 without a size: {text:?}"))?;
                if latest > size {
                    return Err(format!(
                        "the witness cosigned {latest} records, this server signed {size}"
                    ));
                }
                catch_up(state, client, base, old).await;
                if latest == size {
                    return Ok(size);
                }
                old = latest;
            }
            _ => return Err(format!("HTTP {status}: {}", text.trim())),
        }
    }
    Err("the witness's size kept changing".to_owned())
}

/// The signed note of the checkpoint of `size` and the body pushing it
/// from `old` (blocking).
fn request(state: &AppState, old: u64, size: u64) -> Result<(String, String), ApiError> {
    let note = state
        .store
        .log_checkpoint_at(size)?
        .ok_or_else(|| ApiError::internal("a signed checkpoint is missing"))?;
    let proof = StoredHashes(&*state.store)
        .tree_proof(old, size)
        .map_err(ApiError::internal)?;
    let body = add_checkpoint_body(old, &proof, &note);
    Ok((note, body))
}

/// Keeps each answered line as the cosignature of `note`.
async fn keep(
    state: &AppState,
    note: &str,
    lines: impl Iterator<Item = String>,
) -> Result<(), String> {
    for line in lines {
        let submission = CosignatureSubmission {
            checkpoint: note.to_owned(),
            cosignature: line,
        };
        state
            .blocking(move |s| accept_cosignature(s, &submission))
            .await
            .map_err(|e| format!("its cosignature: {e}"))?;
    }
    Ok(())
}

/// The cosignatures the witness published of checkpoints above `old`,
/// which this server may never have got: kept as if posted.
async fn catch_up(state: &AppState, client: &reqwest::Client, base: &str, old: u64) {
    // After a start this server knows no size of the witness's: from the
    // newest checkpoint it holds any cosignature of.
    let old = match old {
        0 => state
            .blocking(|s| Ok(s.store.log_checkpoint(1)?.map_or(0, |c| c.size)))
            .await
            .unwrap_or(0),
        old => old,
    };
    let url = format!("{base}/cosignatures?after={old}");
    let published = match client.get(&url).send().await {
        Ok(answer) if answer.status().is_success() => answer.text().await,
        Ok(answer) => {
            tracing::debug!(status = %answer.status(), %url, "no publication to catch up from");
            return;
        }
        Err(e) => {
            tracing::debug!(error = %e, %url, "no publication to catch up from");
            return;
        }
    };
    let Some(published) = published
        .ok()
        .and_then(|text| serde_json::from_str::<WitnessCosignatures>(&text).ok())
    else {
        return;
    };
    for submission in published.cosignatures {
        let state2 = state.clone();
        let kept = state2
            .blocking(move |s| accept_cosignature(s, &submission))
            .await;
        if let Err(e) = kept {
            tracing::debug!(error = %e, "a published cosignature not kept");
        }
    }
}
