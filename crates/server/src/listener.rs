//! The accept loop. `axum::serve` sets no deadline and accepts every
//! connection, so idle clients could hold the server forever; here:
//!
//! - every connection has `--header-timeout-ms` from its accept, and from
//!   the end of each answer, to bring a complete request head, whatever its
//!   protocol: the HTTP/1-or-2 detection, a partial head, an h2c connection
//!   that sent its preface and settings but no request, an idle kept-alive
//!   connection. Then it is closed (HTTP/2 gets a GOAWAY first). HTTP/2
//!   also pings its peer (`H2_PING_INTERVAL`) while requests run, and drops
//!   it if the pong does not come back in time;
//! - at most `--max-connections-per-address` are open from one peer address
//!   (the TCP peer: behind a reverse proxy, the proxy's address). A new
//!   connection beyond it closes that address's connection idle the longest
//!   (oldest idle first), so that one client holding idle connections
//!   cannot lock out its neighbours behind the same address (a carrier
//!   NAT); only when all of the address's connections are busy is the new
//!   one closed at once;
//! - at most `--max-connections` are open: beyond it the connection idle
//!   the longest is closed to make room, and only when none is idle does
//!   the next connection wait in the listen backlog;
//! - each request carries the peer address for the per-address rate limits;
//! - the answers hyper makes itself to a request head it cannot parse keep
//!   the error contract (`crate::early_answers`).

use crate::early_answers::AnswerParseErrors;
use crate::state::AppState;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request};
use axum::Router;
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{watch, Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tower::ServiceExt;

/// Pause after a failed accept (e.g. out of file descriptors), so the loop
/// does not spin while the condition lasts.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);
/// Time given to open connections to finish once shutdown starts.
const DRAIN: Duration = Duration::from_secs(10);
/// Time an idle connection told to close (HTTP/2: GOAWAY) has to go.
const CLOSE_GRACE: Duration = Duration::from_secs(1);
/// While every connection is busy, how often the accept loop looks again
/// for one that became idle.
const ROOM_RETRY: Duration = Duration::from_millis(20);
/// HTTP/2 pings while a connection is open; a peer that does not answer
/// one within `H2_PING_TIMEOUT` is dropped.
const H2_PING_INTERVAL: Duration = Duration::from_secs(20);
const H2_PING_TIMEOUT: Duration = Duration::from_secs(20);

pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = state.config.limits.clone();
    let answers = Arc::new(crate::early_answers::EarlyAnswers::new(
        &crate::static_files::content_security_policy(&state.config.frame_ancestors),
    ));
    let router = crate::app(state);
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(H2_PING_INTERVAL)
        .keep_alive_timeout(H2_PING_TIMEOUT);
    let idle_limit = limits.header_timeout;
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let table = Arc::new(Table::new(limits.max_connections_per_address));
    let (stop, stopping) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        if !table.make_room_for(peer.ip()) {
            tracing::debug!(%peer, "connection closed: every connection from this address is busy");
            continue;
        }
        let permit = match Arc::clone(&slots).try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => tokio::select! {
                permit = make_room(&slots, &table) => permit,
                () = &mut shutdown => break,
            },
        };
        let registered = Table::register(&table, peer.ip());
        let service = tracked(router.clone(), peer, Arc::clone(&registered.activity));
        let connection = builder
            .serve_connection(
                TokioIo::new(AnswerParseErrors::new(stream, Arc::clone(&answers))),
                TowerToHyperService::new(service),
            )
            .into_owned();
        tokio::spawn(drive(
            connection,
            registered,
            permit,
            idle_limit,
            stopping.clone(),
            peer,
        ));
    }
    drop(listener);
    let _ = stop.send(true);
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    if tokio::time::timeout(DRAIN + CLOSE_GRACE, slots.acquire_many(all))
        .await
        .is_err()
    {
        tracing::warn!("connections still open after the drain period were cut");
    }
    Ok(())
}

/// Runs one connection until it ends, stays idle too long, is chosen to
/// make room, or the server stops; then closes it gracefully within a
/// bound.
async fn drive<C>(
    connection: C,
    registered: Registered,
    permit: OwnedSemaphorePermit,
    idle_limit: Duration,
    mut stopping: watch::Receiver<bool>,
    peer: SocketAddr,
) where
    C: Future<Output = Result<(), Box<dyn std::error::Error + Send + Sync>>> + GracefulClose,
{
    tokio::pin!(connection);
    let activity = Arc::clone(&registered.activity);
    let grace = tokio::select! {
        ended = connection.as_mut() => {
            if let Err(e) = ended {
                tracing::debug!(error = %e, %peer, "connection ended with an error");
            }
            return;
        }
        () = activity.idle_for(idle_limit) => {
            tracing::debug!(%peer, "connection closed: no request in time");
            CLOSE_GRACE
        }
        () = activity.evicted.notified() => {
            tracing::debug!(%peer, "idle connection closed to make room");
            CLOSE_GRACE
        }
        () = async {
            // An error means the server is gone: stop as well.
            let _ = stopping.wait_for(|stop| *stop).await;
        } => DRAIN,
    };
    connection.as_mut().close_gracefully();
    let _ = tokio::time::timeout(grace, connection).await;
    drop(registered);
    drop(permit);
}

/// The graceful shutdown of hyper-util's connection, named so that `drive`
/// can be written for it.
trait GracefulClose {
    fn close_gracefully(self: Pin<&mut Self>);
}

impl<I, S, E, B> GracefulClose for hyper_util::server::conn::auto::Connection<'static, I, S, E>
where
    S: hyper::service::HttpService<Incoming, ResBody = B>,
    S::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    I: hyper::rt::Read + hyper::rt::Write + Unpin,
    B: hyper::body::Body + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    E: hyper_util::server::conn::auto::HttpServerConnExec<S::Future, B>,
{
    fn close_gracefully(self: Pin<&mut Self>) {
        self.graceful_shutdown();
    }
}

/// Closes the idle connection that has waited the longest until a slot is
/// free; while none is idle, waits for one to become idle or end.
async fn make_room(slots: &Arc<Semaphore>, table: &Table) -> OwnedSemaphorePermit {
    loop {
        table.evict_oldest_idle();
        tokio::select! {
            permit = Arc::clone(slots).acquire_owned() => {
                return permit.expect("the connection semaphore is never closed");
            }
            () = tokio::time::sleep(ROOM_RETRY) => {}
        }
    }
}

/// The router, with the peer address on each request and the connection's
/// activity counted from the request head to the end of the answer's body.
fn tracked(
    router: Router,
    peer: SocketAddr,
    activity: Arc<Activity>,
) -> impl tower::Service<
    Request<Incoming>,
    Response = axum::response::Response,
    Error = Infallible,
    Future = impl Future<Output = Result<axum::response::Response, Infallible>> + Send,
> + Clone {
    tower::service_fn(move |mut request: Request<Incoming>| {
        let busy = Busy::start(Arc::clone(&activity));
        request
            .extensions_mut()
            .insert(ConnectInfo::<SocketAddr>(peer));
        let router = router.clone();
        async move {
            let response = router.oneshot(request).await?;
            Ok(response.map(|body| Body::new(TrackedBody { body, _busy: busy })))
        }
    })
}

/// What one connection is doing: requests in progress, and since when it
/// has had none.
struct Activity {
    state: Mutex<ActivityState>,
    /// Told to close to make room for a new connection.
    evicted: Notify,
}

struct ActivityState {
    in_flight: usize,
    idle_since: Instant,
    evicted: bool,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            state: Mutex::new(ActivityState {
                in_flight: 0,
                idle_since: Instant::now(),
                evicted: false,
            }),
            evicted: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ActivityState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Since when the connection has had no request in progress, if so.
    fn idle_since(&self) -> Option<Instant> {
        let state = self.lock();
        (state.in_flight == 0).then_some(state.idle_since)
    }

    /// Completes once the connection has had no request for `limit`.
    async fn idle_for(&self, limit: Duration) {
        loop {
            let deadline = match self.idle_since() {
                Some(since) => since + limit,
                None => Instant::now() + limit,
            };
            tokio::time::sleep_until(deadline).await;
            if self
                .idle_since()
                .is_some_and(|since| since.elapsed() >= limit)
            {
                return;
            }
        }
    }
}

/// One request in progress on a connection, until dropped with its answer.
struct Busy(Arc<Activity>);

impl Busy {
    fn start(activity: Arc<Activity>) -> Busy {
        activity.lock().in_flight += 1;
        Busy(activity)
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.in_flight -= 1;
        state.idle_since = Instant::now();
    }
}

/// An answer's body that keeps its request counted as in progress until it
/// is sent (or dropped): a long export is not an idle connection.
struct TrackedBody {
    body: Body,
    _busy: Busy,
}

impl HttpBody for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The open connections: how many per peer address, and each one's
/// activity, to pick the one idle the longest.
struct Table {
    per_address: usize,
    inner: Mutex<TableInner>,
}

#[derive(Default)]
struct TableInner {
    next_id: u64,
    open: HashMap<u64, (IpAddr, Arc<Activity>)>,
    /// Per address, its open connections not told to close yet: one told
    /// to close no longer counts against its address's share.
    by_address: HashMap<IpAddr, usize>,
}

/// A connection's place in the table, given back when dropped.
struct Registered {
    table: Arc<Table>,
    id: u64,
    address: IpAddr,
    activity: Arc<Activity>,
}

impl Table {
    fn new(per_address: usize) -> Table {
        Table {
            per_address,
            inner: Mutex::new(TableInner::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TableInner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether a new connection from `address` may open: under its share,
    /// or once the address's connection idle the longest is told to close.
    fn make_room_for(&self, address: IpAddr) -> bool {
        let mut inner = self.lock();
        if inner
            .by_address
            .get(&address)
            .is_none_or(|&open| open < self.per_address)
        {
            return true;
        }
        let oldest = oldest_idle(inner.open.values().filter(|(from, _)| *from == address));
        match oldest {
            Some((_, activity)) => {
                evict(&mut inner.by_address, address, &activity);
                true
            }
            None => false,
        }
    }

    fn register(table: &Arc<Table>, address: IpAddr) -> Registered {
        let activity = Arc::new(Activity::new());
        let mut inner = table.lock();
        let id = inner.next_id;
        inner.next_id += 1;
        inner.open.insert(id, (address, Arc::clone(&activity)));
        *inner.by_address.entry(address).or_default() += 1;
        Registered {
            table: Arc::clone(table),
            id,
            address,
            activity,
        }
    }

    /// Tells the connection idle the longest (not told already) to close.
    fn evict_oldest_idle(&self) {
        let mut inner = self.lock();
        if let Some((address, activity)) = oldest_idle(inner.open.values()) {
            evict(&mut inner.by_address, address, &activity);
        }
    }
}

/// Of `connections`, the one with no request in progress for the longest
/// that was not told to close already, with its address.
fn oldest_idle<'a>(
    connections: impl Iterator<Item = &'a (IpAddr, Arc<Activity>)>,
) -> Option<(IpAddr, Arc<Activity>)> {
    connections
        .filter_map(|(address, activity)| {
            let state = activity.lock();
            (state.in_flight == 0 && !state.evicted).then_some((
                state.idle_since,
                address,
                activity,
            ))
        })
        .min_by_key(|(since, ..)| *since)
        .map(|(_, address, activity)| (*address, Arc::clone(activity)))
}

/// Tells `activity`'s connection, from `address`, to close; it stops
/// counting against the address's share at once (its close takes up to
/// `CLOSE_GRACE`).
fn evict(by_address: &mut HashMap<IpAddr, usize>, address: IpAddr, activity: &Activity) {
    activity.lock().evicted = true;
    activity.evicted.notify_one();
    uncount(by_address, address);
}

fn uncount(by_address: &mut HashMap<IpAddr, usize>, address: IpAddr) {
    if let Some(open) = by_address.get_mut(&address) {
        *open -= 1;
        if *open == 0 {
            by_address.remove(&address);
        }
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut inner = self.table.lock();
        inner.open.remove(&self.id);
        // One told to close was uncounted then.
        if !self.activity.lock().evicted {
            uncount(&mut inner.by_address, self.address);
        }
    }
}
