//! The server's side of the beacon: it reads rounds from a drand-shaped
//! HTTP API (`eldorado beacon`, or drand relays serving this scheme) and
//! believes none it has not verified against the key the operator pinned.
//! With several relays, each round is asked of all of them at once and
//! the first answer that verifies is taken, as drand's own clients do: a
//! relay down or lying only costs its own answer.

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
    /// Every relay's base URL, each ending in `/`.
    bases: Vec<url::Url>,
    key: BeaconKey,
    schedule: BeaconClock,
    http: reqwest::Client,
    rounds: Mutex<BTreeMap<u64, BeaconValue>>,
}

impl BeaconClient {
    /// A client of the beacon's relays at `bases` whose rounds come on
    /// `schedule`, without asking them anything yet.
    pub fn with_schedule(
        bases: &[String],
        pinned: &[u8; BEACON_KEY_LEN],
        timeout: Duration,
        schedule: BeaconClock,
    ) -> Result<BeaconClient, BeaconClientError> {
        let bases = bases
            .iter()
            .map(|base| {
                let mut base =
                    url::Url::parse(base).map_err(|e| BeaconClientError::Decode(e.to_string()))?;
                if !base.path().ends_with('/') {
                    base.set_path(&format!("{}/", base.path()));
                }
                Ok(base)
            })
            .collect::<Result<Vec<_>, BeaconClientError>>()?;
        if bases.is_empty() {
            return Err(BeaconClientError::Decode("no beacon URL".to_owned()));
        }
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| BeaconClientError::Http(e.to_string()))?;
        Ok(BeaconClient {
            bases,
            key: BeaconKey::from_bytes(pinned)?,
            schedule,
            http,
            rounds: Mutex::new(BTreeMap::new()),
        })
    }

    /// Reads each relay's `/info` and checks it is the pinned key's: a
    /// relay of another key or scheme is refused at once; the schedule is
    /// the first answering relay's, and one relay must answer.
    pub async fn connect(
        bases: &[String],
        pinned: &[u8; BEACON_KEY_LEN],
        timeout: Duration,
    ) -> Result<BeaconClient, BeaconClientError> {
        let unread = BeaconClock {
            genesis_ms: 0,
            period_ms: 1,
        };
        let mut client = BeaconClient::with_schedule(bases, pinned, timeout, unread)?;
        let mut schedule = None;
        let mut unanswered = None;
        for base in &client.bases {
            let info: BeaconInfo = match get_json(&client.http, base, "info").await {
                Ok(Some(info)) => info,
                Ok(None) => {
                    unanswered = Some(BeaconClientError::Status(404));
                    continue;
                }
                Err(e) => {
                    tracing::warn!(relay = %base, error = %e, "a beacon relay does not answer");
                    unanswered = Some(e);
                    continue;
                }
            };
            if info.scheme_id != BEACON_SCHEME {
                return Err(BeaconClientError::OtherScheme(info.scheme_id));
            }
            if info.public_key != hex::encode(pinned) {
                return Err(BeaconClientError::OtherKey {
                    served: info.public_key,
                });
            }
            let (genesis_ms, period_ms) = info.schedule_ms().ok_or(BeaconClientError::NoPeriod)?;
            schedule.get_or_insert(BeaconClock {
                genesis_ms,
                period_ms,
            });
        }
        client.schedule = match (schedule, unanswered) {
            (Some(schedule), _) => schedule,
            (None, Some(e)) => return Err(e),
            (None, None) => return Err(BeaconClientError::Status(404)),
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
        // Every relay at once; the first answer that verifies wins, and
        // dropping the set stops the others.
        let mut asked = tokio::task::JoinSet::new();
        for base in &self.bases {
            let (http, base) = (self.http.clone(), base.clone());
            asked.spawn(async move {
                get_json::<BeaconRound>(&http, &base, &format!("public/{round}")).await
            });
        }
        let (mut found, mut not_yet, mut failure) = (None, false, None);
        while let Some(answer) = asked.join_next().await {
            let answer = answer
                .map_err(|e| BeaconClientError::Http(e.to_string()))
                .and_then(|answer| answer);
            match answer {
                Ok(Some(served)) => match self.check(round, served) {
                    Ok(value) => {
                        found = Some(value);
                        break;
                    }
                    Err(e) => {
                        tracing::warn!(round, error = %e, "a beacon relay's round does not verify");
                        failure = Some(e);
                    }
                },
                // Not published there yet.
                Ok(None) => not_yet = true,
                Err(e) => failure = Some(e),
            }
        }
        let value = match (found, not_yet, failure) {
            (Some(value), _, _) => value,
            (None, false, Some(e)) => return Err(e),
            (None, _, _) => return Ok(None),
        };
        let mut kept = self.kept();
        kept.insert(round, value);
        while kept.len() > KEPT_ROUNDS {
            kept.pop_first();
        }
        Ok(Some(value))
    }

    /// One relay's answer for `round`, verified under the pinned key.
    fn check(&self, round: u64, served: BeaconRound) -> Result<BeaconValue, BeaconClientError> {
        if served.round != round {
            return Err(BeaconClientError::OtherRound {
                asked: round,
                served: served.round,
            });
        }
        let signature = served
            .signature_bytes()
            .ok_or_else(|| BeaconClientError::Decode("the round's signature".to_owned()))?;
        Ok(BeaconValue {
            randomness: self.key.verify(round, &signature)?,
            signature,
        })
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
