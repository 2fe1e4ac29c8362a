//! What counts as activity after the stale label: not bots, notifications or gh-sweep's own
//! comments and label writes; an update nothing read explains does count. GitHub's stamps of
//! one moment are compared with a few seconds of slack.

use chrono::{DateTime, Duration, Utc};

use super::{Activity, ActivityKind, History};

/// How far GitHub's own stamps of one moment may differ and still mean "nothing since": the
/// label event and the issue's `updated_at`, a write's `Date` header and the stamps it leaves,
/// a comment's `created_at` and the journal's time of sending it. Seconds apart in practice;
/// at least 15 s, and only ever GitHub's times against GitHub's (or the journal's with it).
pub(crate) const QUIET_SLACK_SECONDS: i64 = 15;

/// Whether an issue event only records that someone was notified: `mentioned` (someone wrote
/// their name; the comment or body that did is read on its own), `subscribed` and
/// `unsubscribed`. Such an event explains an update but is nobody acting on the item. Every
/// other event by a person counts as activity, whatever its kind (`pinned`,
/// `marked_as_duplicate`, `connected`, `referenced`, `added_to_project`, `transferred`,
/// `comment_deleted`, ...): closing an issue a maintainer just pinned is the harm to avoid, and
/// actions/stale too treats any update after its label as activity. One rule on both read paths.
pub(crate) fn is_notification(event: &str) -> bool {
    matches!(event, "mentioned" | "subscribed" | "unsubscribed")
}

/// From when to look for gh-sweep's comment whose answer was lost, on GitHub's clock: the
/// journal's local time of sending it, moved by how far our clock is ahead of GitHub's (`skew`,
/// from a `Date` header, when known), less the clock slack.
pub(crate) fn reconcile_since(intent_at: DateTime<Utc>, skew: Option<Duration>) -> DateTime<Utc> {
    intent_at - skew.unwrap_or_else(Duration::zero) - Duration::seconds(QUIET_SLACK_SECONDS)
}

/// Whether anything may have happened after the label (and after gh-sweep's own writes),
/// judged from `updated_at` alone. When false, no comment needs to be read.
pub(crate) fn activity_possible(
    updated_at: DateTime<Utc>,
    label_added_at: DateTime<Utc>,
    own_last_write: Option<DateTime<Utc>>,
) -> bool {
    let quiet_until = own_last_write.map_or(label_added_at, |own| own.max(label_added_at));
    updated_at > quiet_until + Duration::seconds(QUIET_SLACK_SECONDS)
}

/// An update that no comment, event or review read explains (an edit of the body, a plain push:
/// neither names a GitHub account), treated as activity so an item that changed is never closed
/// as idle; its actor is unknown.
pub(crate) fn unexplained_update(
    updated_at: DateTime<Utc>,
    label_added_at: DateTime<Utc>,
    own_last_write: Option<DateTime<Utc>>,
    activity: &[Activity],
) -> Option<Activity> {
    let explained = activity
        .iter()
        .map(|activity| activity.at)
        .chain(own_last_write)
        .fold(label_added_at, DateTime::max);
    (updated_at > explained + Duration::seconds(QUIET_SLACK_SECONDS)).then(|| Activity {
        kind: ActivityKind::Unattributed,
        at: updated_at,
        login: String::new(),
        is_bot: false,
        marker: None,
        what: "updated, actor unknown (an edit or a push)".to_string(),
        notification: false,
    })
}

/// Whether an activity is one of gh-sweep's own label writes: a label event by the token's
/// user at the time of the mark's writes (within the clock slack). Nothing else the token's
/// user did is excluded: a maintainer's own comment or label counts.
fn own_label_event(
    activity: &Activity,
    viewer: Option<&str>,
    own_writes: Option<(DateTime<Utc>, DateTime<Utc>)>,
) -> bool {
    let slack = Duration::seconds(QUIET_SLACK_SECONDS);
    activity.kind == ActivityKind::LabelEvent
        && viewer.is_some_and(|viewer| activity.login.eq_ignore_ascii_case(viewer))
        && own_writes.is_some_and(|(first, last)| {
            activity.at >= first - slack && activity.at <= last + slack
        })
}

pub(super) fn counts_as_activity(
    activity: &Activity,
    history: &History,
    viewer: Option<&str>,
) -> bool {
    activity.at > history.label_added_at
        && !activity.is_bot
        && !activity.notification
        && activity.marker.is_none()
        && !own_label_event(activity, viewer, history.own_writes)
}
