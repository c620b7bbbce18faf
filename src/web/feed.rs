//! The live feed: a thread polls git-evolv's own refs (`refs/evolv/**`,
//! loose or packed, and HEAD) every 100 ms, turns each change into a
//! numbered event, and the event stream sends them to every page. Any
//! process's propose, apply, drop, rollback or comment shows up; the working
//! tree is never looked at.
//!
//! Event ids are `<epoch>:<seq>`: a reconnecting page sends the last one it
//! saw (`Last-Event-ID`) and gets exactly the events after it from the
//! server's buffer, or, when it cannot (another server instance, a gap too
//! old), a `reset` telling it to reload its state. Never a duplicate.

use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;

use super::AppState;
use crate::error::Result;
use crate::ops::reading::review_page::RefFeed;

/// Events kept for reconnecting pages.
const BUFFER: usize = 2048;

/// One change to a ref.
#[derive(Debug, Clone, Serialize)]
pub struct FeedEvent {
    pub seq: u64,
    /// `proposal`, `applied`, `comments` or `head`.
    pub kind: &'static str,
    /// The proposal concerned (none for `head`).
    pub patch_id: Option<String>,
    /// `created`, `updated` or `deleted`.
    pub change: &'static str,
}

struct Log {
    seq: u64,
    events: VecDeque<FeedEvent>,
}

/// The numbered events of this server instance.
#[derive(Clone)]
pub struct Feed {
    epoch: String,
    log: Arc<Mutex<Log>>,
    tx: broadcast::Sender<FeedEvent>,
    closed: watch::Sender<bool>,
}

/// Ends every open event stream (on shutdown).
pub struct Closer(watch::Sender<bool>);

impl Closer {
    pub fn close(&self) {
        let _ = self.0.send(true);
    }
}

impl Feed {
    pub fn new() -> Self {
        let epoch = format!(
            "{:x}{:x}",
            crate::store::proposals::now_secs(),
            std::process::id()
        );
        Feed {
            epoch,
            log: Arc::new(Mutex::new(Log {
                seq: 0,
                events: VecDeque::new(),
            })),
            tx: broadcast::channel(BUFFER).0,
            closed: watch::channel(false).0,
        }
    }

    /// Every event from now on, in order (the MCP server's subscriptions
    /// listen here too: one watcher, not a second).
    pub fn subscribe(&self) -> broadcast::Receiver<FeedEvent> {
        self.tx.subscribe()
    }

    pub fn closer(&self) -> Closer {
        Closer(self.closed.clone())
    }

    fn publish(&self, kind: &'static str, patch_id: Option<String>, change: &'static str) {
        let mut log = self.log.lock().expect("feed log");
        log.seq += 1;
        let event = FeedEvent {
            seq: log.seq,
            kind,
            patch_id,
            change,
        };
        log.events.push_back(event.clone());
        if log.events.len() > BUFFER {
            log.events.pop_front();
        }
        // Sent under the lock, so subscribers see events in seq order.
        let _ = self.tx.send(event);
    }

    /// The events after `since` if the buffer still has all of them.
    fn after(&self, since: u64) -> (u64, Option<Vec<FeedEvent>>) {
        let log = self.log.lock().expect("feed log");
        let oldest = log.events.front().map_or(log.seq + 1, |e| e.seq);
        let complete = since <= log.seq && since + 1 >= oldest;
        let events = complete.then(|| {
            log.events
                .iter()
                .filter(|e| e.seq > since)
                .cloned()
                .collect()
        });
        (log.seq, events)
    }

    fn id(&self, seq: u64) -> String {
        format!("{}:{seq}", self.epoch)
    }
}

/// The polling thread; stops when told or when the server is dropped.
pub struct Watcher {
    stop: Arc<AtomicBool>,
}

impl Watcher {
    /// Takes a first snapshot (so existing refs are not reported as new),
    /// then polls every `interval`.
    pub fn start(dir: &Path, feed: Feed, interval: Duration) -> Result<Self> {
        // Read-only and long-lived: the thread keeps its own session.
        let session = crate::ops::Session::open_for::<RefFeed>(dir, super::context())?;
        let mut last = session.run(&RefFeed).unwrap_or_default();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        std::thread::Builder::new()
            .name("evolv-feed".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(interval);
                    let now = session.run(&RefFeed).unwrap_or_default();
                    report(&feed, &last, &now);
                    last = now;
                }
            })
            .map_err(|e| crate::error::Error::io("start", "the ref watcher thread", e))?;
        Ok(Watcher { stop })
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Which kind of event a ref's change is, and for which proposal.
fn classify(name: &str) -> Option<(&'static str, Option<String>)> {
    if name == "HEAD" {
        return Some(("head", None));
    }
    let rest = name.strip_prefix("refs/evolv/")?;
    let (kind, id) = rest.split_once('/')?;
    let kind = match kind {
        "proposals" => "proposal",
        "applied" => "applied",
        "comments" => "comments",
        _ => return None,
    };
    Some((kind, Some(id.to_string())))
}

/// The events between two snapshots of `Session::evolv_refs` (ref name to
/// object id).
fn report(feed: &Feed, old: &BTreeMap<String, String>, new: &BTreeMap<String, String>) {
    for (name, oid) in new {
        let change = match old.get(name) {
            None => "created",
            Some(o) if o != oid => "updated",
            Some(_) => continue,
        };
        if let Some((kind, id)) = classify(name) {
            feed.publish(kind, id, change);
        }
    }
    for name in old.keys().filter(|n| !new.contains_key(*n)) {
        if let Some((kind, id)) = classify(name) {
            feed.publish(kind, id, "deleted");
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Since {
    /// The last event id seen (`<epoch>:<seq>`), as `Last-Event-ID` carries it.
    #[serde(default)]
    since: Option<String>,
}

/// `GET /api/events`: the event stream for clients that can send an Origin
/// (a browser's EventSource sends none on a same-origin GET, and the
/// security layer demands one, so the page uses the POST form).
pub async fn events_get(
    State(state): State<Arc<AppState>>,
    Query(q): Query<Since>,
    headers: HeaderMap,
) -> axum::response::Response {
    stream(state, &headers, q.since)
}

/// `POST /api/events` with `{"since": "<epoch>:<seq>" | null}`: the page's
/// event stream (a POST always carries its Origin).
pub async fn events_post(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let since: Since = if body.is_empty() {
        Since::default()
    } else {
        match serde_json::from_slice(&body) {
            Ok(s) => s,
            Err(e) => {
                return (
                    axum::http::StatusCode::BAD_REQUEST,
                    format!("400: the body must be {{\"since\": \"<epoch>:<seq>\" | null}}: {e}\n"),
                )
                    .into_response();
            }
        }
    };
    stream(state, &headers, since.since)
}

fn stream(
    state: Arc<AppState>,
    headers: &HeaderMap,
    since: Option<String>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let feed = state.feed.clone();
    let last = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or(since);
    // Subscribe before reading the buffer, so nothing falls in between.
    let mut rx = feed.tx.subscribe();
    let mut closed = feed.closed.subscribe();
    let (out, stream) = mpsc::channel(64);
    tokio::spawn(async move {
        let since = last.and_then(|id| {
            let (epoch, seq) = id.split_once(':')?;
            (epoch == feed.epoch).then(|| seq.parse::<u64>().ok())?
        });
        let (current, replay) = match since {
            Some(s) => feed.after(s),
            None => (feed.after(0).0, None),
        };
        let mut sent = current;
        let first = match replay {
            Some(events) => {
                let mut ok = true;
                for e in events {
                    ok &= out.send(Ok(event(&feed, &e))).await.is_ok();
                }
                ok
            }
            None => out.send(Ok(reset(&feed, current))).await.is_ok(),
        };
        if !first {
            return;
        }
        loop {
            tokio::select! {
                received = rx.recv() => match received {
                    Ok(e) if e.seq <= sent => continue,
                    Ok(e) => {
                        sent = e.seq;
                        if out.send(Ok(event(&feed, &e))).await.is_err() {
                            return;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => {
                        let (now, _) = feed.after(0);
                        sent = now;
                        if out.send(Ok(reset(&feed, now))).await.is_err() {
                            return;
                        }
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                _ = closed.changed() => return,
            }
        }
    });
    Sse::new(ReceiverStream::<std::result::Result<Event, Infallible>>::new(stream))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

fn event(feed: &Feed, e: &FeedEvent) -> Event {
    Event::default()
        .id(feed.id(e.seq))
        .event("change")
        .retry(Duration::from_millis(250))
        .data(serde_json::to_string(e).expect("events serialise"))
}

fn reset(feed: &Feed, seq: u64) -> Event {
    Event::default()
        .id(feed.id(seq))
        .event("reset")
        .retry(Duration::from_millis(250))
        .data(serde_json::json!({ "seq": seq, "epoch": feed.epoch }).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reconnect_gets_exactly_the_missed_events() {
        let feed = Feed::new();
        for _ in 0..5 {
            feed.publish("proposal", Some("p".into()), "created");
        }
        let (seq, events) = feed.after(3);
        assert_eq!(seq, 5);
        let seqs: Vec<u64> = events.unwrap().iter().map(|e| e.seq).collect();
        assert_eq!(seqs, vec![4, 5]);
        assert_eq!(feed.after(5).1.unwrap().len(), 0);
        // From the future (another instance's numbering): reset.
        assert!(feed.after(9).1.is_none());
    }

    #[test]
    fn an_old_gap_needs_a_reset() {
        let feed = Feed::new();
        for _ in 0..(BUFFER + 10) {
            feed.publish("head", None, "updated");
        }
        assert!(feed.after(1).1.is_none());
        assert!(feed.after(20).1.is_some());
    }

    #[test]
    fn refs_map_to_kinds_and_ids() {
        assert_eq!(
            classify("refs/evolv/proposals/patch_1_a"),
            Some(("proposal", Some("patch_1_a".into())))
        );
        assert_eq!(classify("refs/evolv/comments/x").unwrap().0, "comments");
        assert_eq!(classify("refs/evolv/audit"), None);
        assert_eq!(classify("HEAD"), Some(("head", None)));
    }
}
