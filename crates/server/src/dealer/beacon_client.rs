//! The server's side of the beacon: it reads rounds from a drand-shaped
//! HTTP API (`eldorado beacon`, or a drand relay serving this scheme) and
//! believes none it has not verified against the key the operator pinned.

use crate::store::deal::BeaconValue;
use eldorado_api::beacon::{BeaconInfo, BeaconRound};
use eldorado_engine::deal::{BeaconClock, BeaconError, BeaconKey, BEACON_KEY_LEN, BEACON_SCHEME};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

/// Verified rounds kept: a few minutes of rounds at half a second.
const KEPT_ROUNDS: usize = 1_024;

#[derive(Debug, thiserror::Error)]
pub enum BeaconClientError {
    #[error("the beacon did not answer: {0}")]
    Http(String),
    #[error("the beacon answered {0}")]
    Status(u16),
    #[error("the beacon's answer does not read: {0}")]
    Decode(String),
    #[error("the beacon serves the key {served}, not the pinned --beacon-key")]
    OtherKey { served: String },
    #[error("the beacon's scheme is {0:?}, not {BEACON_SCHEME}")]
    OtherScheme(String),
    #[error("the beacon's /info gives no schedule (genesis and a period above 0)")]
    NoPeriod,
    #[error("the beacon served round {served} for round {asked}")]
    OtherRound { asked: u64, served: u64 },
    #[error(transparent)]
    Verify(#[from] BeaconError),
}

pub struct BeaconClient {
    base: url::Url,
    key: BeaconKey,
    schedule: BeaconClock,
    http: reqwest::Client,
    rounds: Mutex<BTreeMap<u64, BeaconValue>>,
}

impl BeaconClient {
    /// A client of the beacon at `base` whose rounds come on `schedule`,
    /// without asking it anything yet.
    pub fn with_schedule(
        base: &str,
        pinned: &[u8; BEACON_KEY_LEN],
        timeout: Duration,
        schedule: BeaconClock,
    ) -> Result<BeaconClient, BeaconClientError> {
        let mut base =
            url::Url::parse(base).map_err(|e| BeaconClientError::Decode(e.to_string()))?;
        if !base.path().ends_with('/') {
            base.set_path(&format!("{}/", base.path()));
        }
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| BeaconClientError::Http(e.to_string()))?;
        Ok(BeaconClient {
            base,
            key: BeaconKey::from_bytes(pinned)?,
            schedule,
            http,
            rounds: Mutex::new(BTreeMap::new()),
        })
    }

    /// Reads the beacon's `/info` and checks it is the pinned key's.
    pub async fn connect(
        base: &str,
        pinned: &[u8; BEACON_KEY_LEN],
        timeout: Duration,
    ) -> Result<BeaconClient, BeaconClientError> {
        let unread = BeaconClock {
            genesis_ms: 0,
            period_ms: 1,
        };
        let mut client = BeaconClient::with_schedule(base, pinned, timeout, unread)?;
        let info: BeaconInfo = get_json(&client.http, &client.base, "info")
            .await?
            .ok_or(BeaconClientError::Status(404))?;
        if info.scheme_id != BEACON_SCHEME {
            return Err(BeaconClientError::OtherScheme(info.scheme_id));
        }
        if info.public_key != hex::encode(pinned) {
            return Err(BeaconClientError::OtherKey {
                served: info.public_key,
            });
        }
        let (genesis_ms, period_ms) = info.schedule_ms().ok_or(BeaconClientError::NoPeriod)?;
        client.schedule = BeaconClock {
            genesis_ms,
            period_ms,
        };
        Ok(client)
    }

    pub fn schedule(&self) -> BeaconClock {
        self.schedule
    }

    /// Round `round`'s value, verified; `None` while it is not published.
    pub async fn round(&self, round: u64) -> Result<Option<BeaconValue>, BeaconClientError> {
        if let Some(value) = self.kept().get(&round) {
            return Ok(Some(*value));
        }
        let Some(served) =
            get_json::<BeaconRound>(&self.http, &self.base, &format!("public/{round}")).await?
        else {
            return Ok(None);
        };
        if served.round != round {
            return Err(BeaconClientError::OtherRound {
                asked: round,
                served: served.round,
            });
        }
        let signature = served
            .signature_bytes()
            .ok_or_else(|| BeaconClientError::Decode("the round's signature".to_owned()))?;
        let value = BeaconValue {
            randomness: self.key.verify(round, &signature)?,
            signature,
        };
        let mut kept = self.kept();
        kept.insert(round, value);
        while kept.len() > KEPT_ROUNDS {
            kept.pop_first();
        }
        Ok(Some(value))
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, BeaconValue>> {
        self.rounds.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// `None` for a 404: a round not published yet.
async fn get_json<T: serde::de::DeserializeOwned>(
    http: &reqwest::Client,
    base: &url::Url,
    path: &str,
) -> Result<Option<T>, BeaconClientError> {
    let url = base
        .join(path)
        .map_err(|e| BeaconClientError::Decode(e.to_string()))?;
    let response = http
        .get(url)
        .send()
        .await
        .map_err(|e| BeaconClientError::Http(e.to_string()))?;
    match response.status().as_u16() {
        200 => {}
        404 => return Ok(None),
        status => return Err(BeaconClientError::Status(status)),
    }
    let body = response
        .bytes()
        .await
        .map_err(|e| BeaconClientError::Http(e.to_string()))?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| BeaconClientError::Decode(e.to_string()))
}
