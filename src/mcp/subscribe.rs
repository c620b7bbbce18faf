//! Resource subscriptions, told by the review page's live feed
//! (`web::feed`: one watcher of `refs/evolv/**` and HEAD per repository
//! in this process, started at the first subscription, shared by every
//! connection). 2025-11-25 clients subscribe with `resources/subscribe`
//! and hear `notifications/resources/updated` on their connection;
//! 2026-07-28 clients open a `subscriptions/listen` stream with the URIs
//! in its filter and hear the same there. A new or dropped proposal also
//! changes the list (`notifications/resources/list_changed`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use rmcp::model::{ResourceUpdatedNotificationParam, SubscriptionFilter};
use rmcp::service::{Peer, SubscriptionContext};
use rmcp::{ErrorData, RoleServer};
use tokio::sync::broadcast::error::RecvError;

use super::resources::uri::Uri;
use crate::web::feed::{Feed, FeedEvent, Watcher};

/// The feed of the repository at `dir`, its watcher started once.
fn feed(dir: &Path) -> Result<Feed, ErrorData> {
    static FEEDS: OnceLock<Mutex<HashMap<PathBuf, (Feed, Watcher)>>> = OnceLock::new();
    let mut feeds = FEEDS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some((feed, _)) = feeds.get(dir) {
        return Ok(feed.clone());
    }
    let feed = Feed::new();
    let watcher = Watcher::start(dir, feed.clone(), Duration::from_millis(100)).map_err(|e| {
        ErrorData::internal_error(format!("cannot watch the repository: {e}"), None)
    })?;
    feeds.insert(dir.to_path_buf(), (feed.clone(), watcher));
    Ok(feed)
}

/// Whether `event` changes what `uri` reads.
fn touches(event: &FeedEvent, uri: &Uri) -> bool {
    match (event.patch_id.as_deref(), uri.patch_id()) {
        // A branch move changes every status, never a diff or a comment.
        (None, _) => !matches!(uri, Uri::Diff(..) | Uri::Comments(_)),
        (Some(_), None) => true,
        (Some(changed), Some(id)) => changed == id,
    }
}

/// Whether `event` adds or removes a listed resource.
fn changes_list(event: &FeedEvent) -> bool {
    event.kind == "proposal" && event.change != "updated"
}

/// The `resources/subscribe` subscriptions of one connection.
#[derive(Default)]
pub struct Subscriptions {
    uris: Mutex<HashSet<String>>,
    started: Mutex<bool>,
}

impl Subscriptions {
    /// `resources/subscribe`: from now on, a change to `uri` is told to `peer`.
    pub fn subscribe(
        self: &Arc<Self>,
        dir: &Path,
        uri: &str,
        peer: &Peer<RoleServer>,
    ) -> Result<(), ErrorData> {
        if Uri::parse(uri).is_none() {
            return Err(ErrorData::resource_not_found(
                format!("resource not found: {uri}"),
                Some(serde_json::json!({ "uri": uri })),
            ));
        }
        let feed = feed(dir)?;
        self.uris
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(uri.to_string());
        let mut started = self.started.lock().unwrap_or_else(|e| e.into_inner());
        if !*started {
            *started = true;
            let mut rx = feed.subscribe();
            let this = self.clone();
            let peer = peer.clone();
            tokio::spawn(async move {
                loop {
                    let event = match rx.recv().await {
                        Ok(e) => e,
                        Err(RecvError::Lagged(_)) => continue,
                        Err(RecvError::Closed) => return,
                    };
                    let hit: Vec<String> = this
                        .uris
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .iter()
                        .filter(|u| Uri::parse(u).is_some_and(|u| touches(&event, &u)))
                        .cloned()
                        .collect();
                    for uri in hit {
                        let param = ResourceUpdatedNotificationParam::new(uri);
                        if peer.notify_resource_updated(param).await.is_err() {
                            return; // the connection is gone
                        }
                    }
                }
            });
        }
        Ok(())
    }

    /// `resources/unsubscribe`.
    pub fn unsubscribe(&self, uri: &str) {
        self.uris
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(uri);
    }
}

/// What a `subscriptions/listen` filter may hold: our URIs and the list.
pub fn accepted(requested: &SubscriptionFilter) -> SubscriptionFilter {
    let mut accepted = SubscriptionFilter::new();
    accepted.resources_list_changed = requested.resources_list_changed;
    accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
        uris.iter()
            .filter(|u| Uri::parse(u).is_some())
            .cloned()
            .collect()
    });
    accepted
}

/// Runs one `subscriptions/listen` stream until the client cancels it.
pub async fn listen(dir: &Path, context: SubscriptionContext) -> Result<(), ErrorData> {
    let mut rx = feed(dir)?.subscribe();
    let accepted = context.accepted().clone();
    let uris: Vec<Uri> = accepted
        .resource_subscriptions
        .iter()
        .flatten()
        .filter_map(|u| Uri::parse(u))
        .collect();
    let list = accepted.resources_list_changed == Some(true);
    loop {
        let event = tokio::select! {
            () = context.cancelled() => return Ok(()),
            received = rx.recv() => match received {
                Ok(e) => e,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return Ok(()),
            },
        };
        for uri in uris.iter().filter(|u| touches(&event, u)) {
            if context
                .sink()
                .notify_resource_updated(uri.text())
                .await
                .is_err()
            {
                return Ok(());
            }
        }
        if list
            && changes_list(&event)
            && context.sink().notify_resource_list_changed().await.is_err()
        {
            return Ok(());
        }
    }
}
