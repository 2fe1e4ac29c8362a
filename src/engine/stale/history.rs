//! The history the stale rules need of an item carrying the stale label: the label's time
//! (from the store when gh-sweep put it there, else from the events; unknown when no event
//! names it), and what happened since, read with as few requests as GitHub allows.

use std::cell::Cell;

use chrono::{DateTime, Utc};

use super::StaleKind;
use crate::engine::{ReadError, StoreView};
use crate::github::{model, Reader};
use crate::item::ItemRef;
use crate::policy::stale::{self, Activity, History, ItemFacts};

impl StaleKind<'_> {
    pub(super) fn history(
        &self,
        github: &dyn Reader,
        store: StoreView<'_>,
        item: &ItemRef,
        facts: &ItemFacts,
    ) -> Result<Option<History>, ReadError> {
        let label = self.rules.stale_label(facts.is_pr);
        let known = store
            .stale_mark(item, label)
            .map_err(ReadError::store("reading the store"))?;
        // Only when the store has no record of a finished mark can one have been interrupted.
        let mark_unfinished = known.is_none()
            && store
                .mark_unfinished(item, label)
                .map_err(ReadError::store("reading the store"))?;
        let mut events: Option<Vec<model::Event>> = None;
        let (label_added_at, own_last_write) = match known {
            Some((labeled_at, last_write)) => (labeled_at, Some(last_write)),
            None => {
                self.spend(1);
                let read = github.events(item)?;
                let Some(labeled) = last_labeled(&read, label) else {
                    return Ok(None);
                };
                events = Some(read);
                (labeled, None)
            }
        };
        // gh-sweep's own writes of the mark: as the store recorded them, else (no record) the
        // label event's own time.
        let own_writes = Some((label_added_at, own_last_write.unwrap_or(label_added_at)));
        // An interrupted mark reads the comments whatever the stamps say: its comment may be
        // there (its answer lost), seconds after the label, and it must not be posted twice.
        if !mark_unfinished
            && !stale::activity_possible(facts.updated_at, label_added_at, own_last_write)
        {
            return Ok(Some(History {
                label_added_at,
                activity: Vec::new(),
                mark_unfinished,
                own_writes,
            }));
        }
        let events = match events {
            Some(events) => events,
            None => {
                self.spend(1);
                github.events(item)?
            }
        };
        let activity = activity_since(
            github,
            item,
            facts,
            events,
            (label_added_at, own_last_write),
            &self.operations,
        )?;
        Ok(Some(History {
            label_added_at,
            activity,
            mark_unfinished,
            own_writes,
        }))
    }
}

/// The newest time the label was added, by the events. Events keep a label's name as it was
/// then: after a rename, no event names the label as it is now, and its date is unknown
/// (`None`), not guessed.
fn last_labeled(events: &[model::Event], label: &str) -> Option<DateTime<Utc>> {
    events
        .iter()
        .filter(|event| {
            event.name == "labeled"
                && event
                    .label
                    .as_deref()
                    .is_some_and(|name| name.eq_ignore_ascii_case(label))
        })
        .map(|event| event.activity.at)
        .max()
}

/// What happened to the item since the label: its events and comments; a PR's timeline only
/// where those leave `updated_at` unexplained (a review has no issue event); and, if it is
/// still unexplained, the update itself.
fn activity_since(
    github: &dyn Reader,
    item: &ItemRef,
    facts: &ItemFacts,
    events: Vec<model::Event>,
    (label_added_at, own_last_write): (DateTime<Utc>, Option<DateTime<Utc>>),
    operations: &Cell<u64>,
) -> Result<Vec<Activity>, ReadError> {
    let spend = || operations.set(operations.get() + 1);
    let since_label = |events: Vec<model::Event>| -> Vec<Activity> {
        events
            .into_iter()
            .map(|event| event.activity)
            .filter(|activity| activity.at > label_added_at)
            .collect()
    };
    let mut activity: Vec<Activity> = Vec::new();
    spend();
    for comment in github.comments_since(item, label_added_at)? {
        if comment.activity.at >= label_added_at {
            activity.push(comment.activity);
        }
    }
    let mut from_events = since_label(events);
    let unexplained = |activity: &[Activity], from_events: &[Activity]| {
        let all: Vec<Activity> = activity.iter().chain(from_events).cloned().collect();
        stale::unexplained_update(facts.updated_at, label_added_at, own_last_write, &all)
    };
    if unexplained(&activity, &from_events).is_some() && facts.is_pr {
        spend();
        for found in github.timeline(item)? {
            if found.at > label_added_at {
                activity.push(found);
            }
        }
    }
    // An update still unexplained may be an event this read path cannot show: REST's whole
    // list decides, so both read paths judge the same events.
    if unexplained(&activity, &from_events).is_some() {
        if let Some(all) = github.events_in_full(item)? {
            spend();
            from_events = since_label(all);
        }
    }
    let update = unexplained(&activity, &from_events);
    from_events.extend(activity);
    from_events.extend(update);
    Ok(from_events)
}
