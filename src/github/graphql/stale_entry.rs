//! What a page of the stale query carried of one item's timeline, reduced as the page is parsed
//! to the entries the stale rules can tell apart, and kept by the reader until the item's reads
//! (events, comments, timeline) have each taken it once.
//!
//! The rules look at what happened after the stale label was put on (`policy::stale`): the
//! newest activity that counts (a person's, not a notification, not gh-sweep's marker), whether
//! anything at all explains the update (the newest entry of any kind), gh-sweep's own comments
//! (by their marker) and label events (the label's date; the token user's own writes). Of the
//! entries that are neither a label event nor a marker's comment, only the newest of each kind
//! and read can change a verdict, whatever the label's date: the others are dropped.

use std::collections::HashSet;
use std::rc::Rc;

use chrono::{DateTime, Utc};

use crate::github::model::Event;
use crate::github::reader::Comment;
use crate::policy::stale::{is_notification, Activity, ActivityKind};
use crate::policy::write::marker_in;

/// Open issues (and, apart, open PRs) per page at first.
pub(super) const ITEMS_PER_PAGE: u64 = 100;

/// Logins and label names, each kept once however many entries name it.
#[derive(Default)]
pub(super) struct Interner(HashSet<Rc<str>>);

impl Interner {
    pub(super) fn get(&mut self, name: &str) -> Rc<str> {
        if let Some(found) = self.0.get(name) {
            return Rc::clone(found);
        }
        let name: Rc<str> = Rc::from(name);
        self.0.insert(Rc::clone(&name));
        name
    }
}

/// Which read of an item's timeline.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum TimelineRead {
    Events,
    Comments,
    Timeline,
}

const READS: [TimelineRead; 3] = [
    TimelineRead::Events,
    TimelineRead::Comments,
    TimelineRead::Timeline,
];

/// What an entry is, for the read that answers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum What {
    /// An issue event, by REST's name (`labeled`, `head_ref_force_pushed`, ...).
    Event(&'static str),
    Comment,
    /// A submitted review (the timeline read's alone).
    Review,
}

/// One timeline entry, as the rules see it.
#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub(super) at: DateTime<Utc>,
    pub(super) what: What,
    pub(super) login: Rc<str>,
    pub(super) is_bot: bool,
    /// A label event's label.
    pub(super) label: Option<Rc<str>>,
    /// A comment's body, kept when it carries gh-sweep's marker (a reconcile looks for it; a
    /// body without one cannot hold it).
    pub(super) body: Option<Box<str>>,
}

impl Entry {
    fn is_label_event(&self) -> bool {
        matches!(self.what, What::Event("labeled" | "unlabeled"))
    }

    fn marker(&self) -> Option<String> {
        self.body.as_deref().and_then(marker_in)
    }

    /// Whether `read` answers this entry: a force push is an event and a timeline entry.
    fn answers(&self, read: TimelineRead) -> bool {
        match (read, self.what) {
            (TimelineRead::Events, What::Event(_)) | (TimelineRead::Comments, What::Comment) => {
                true
            }
            (TimelineRead::Timeline, What::Review) => true,
            (TimelineRead::Timeline, What::Event(name)) => name == "head_ref_force_pushed",
            _ => false,
        }
    }

    /// Kept whatever else happened: label events (the label's date, gh-sweep's own writes)
    /// and gh-sweep's comments (by their marker).
    fn always_kept(&self) -> bool {
        self.is_label_event() || self.body.is_some()
    }

    /// Whether it may count as activity (`policy::stale::counts_as_activity`): by a person,
    /// not a notification (label events and markers are kept apart).
    fn may_count(&self) -> bool {
        let notification = matches!(self.what, What::Event(name) if is_notification(name));
        !self.is_bot && !notification
    }

    pub(super) fn activity(&self, read: TimelineRead) -> Activity {
        let (kind, what, notification) = match (read, self.what) {
            (_, What::Comment) => (ActivityKind::Comment, "comment".to_string(), false),
            (TimelineRead::Timeline, What::Review) => {
                (ActivityKind::Event, "review".to_string(), false)
            }
            (TimelineRead::Timeline, What::Event(name)) => {
                (ActivityKind::Event, name.to_string(), false)
            }
            (_, What::Event(name)) => {
                let kind = if self.is_label_event() {
                    ActivityKind::LabelEvent
                } else {
                    ActivityKind::Event
                };
                let what = match &self.label {
                    Some(label) => format!("{name} \"{label}\""),
                    None => name.to_string(),
                };
                (kind, what, is_notification(name))
            }
            (_, What::Review) => (ActivityKind::Event, "review".to_string(), false),
        };
        Activity {
            kind,
            at: self.at,
            login: self.login.to_string(),
            is_bot: self.is_bot,
            marker: if read == TimelineRead::Comments {
                self.marker()
            } else {
                None
            },
            what,
            notification,
        }
    }
}

/// The entries of `entries` (oldest first) the rules can tell apart, in their order: every
/// label event and marker's comment, and for each read and each of "may count" and "does
/// not", every entry at that kind's newest time (all of them, so the newest counting one is
/// the one a whole list's `max_by_key` would pick).
pub(super) fn reduce(entries: Vec<Entry>) -> Vec<Entry> {
    let mut newest: [[Option<DateTime<Utc>>; 2]; 3] = [[None; 2]; 3];
    for entry in entries.iter().filter(|entry| !entry.always_kept()) {
        for (index, read) in READS.iter().enumerate() {
            if entry.answers(*read) {
                let slot = &mut newest[index][usize::from(entry.may_count())];
                *slot = (*slot).max(Some(entry.at));
            }
        }
    }
    let mut kept: Vec<Entry> = entries
        .into_iter()
        .filter(|entry| {
            entry.always_kept()
                || READS.iter().enumerate().any(|(index, read)| {
                    entry.answers(*read)
                        && newest[index][usize::from(entry.may_count())] == Some(entry.at)
                })
        })
        .collect();
    // The filter reuses the page's buffer (room for every entry of the page, up to 100): an
    // item keeps room for what it keeps, a few entries, not the page's.
    kept.shrink_to_fit();
    kept
}

/// What one page (or several, going back) carried of an item's timeline, reduced.
#[derive(Default, Debug)]
pub(super) struct Timeline {
    /// The entries kept, oldest first.
    pub(super) entries: Vec<Entry>,
    /// Every entry after this time is here; older ones may be missing (`None`: the whole
    /// timeline is here).
    pub(super) after: Option<DateTime<Utc>>,
    /// Where the older entries end, when the page left some out.
    pub(super) before: Option<String>,
    /// An entry GitHub answered `null`, or a label event whose label changed since: its name
    /// may not be REST's (see `stale_parse::entry`).
    pub(super) doubt: bool,
    /// The first entry of each read that did not parse: that read's failure.
    pub(super) errors: [Option<String>; 3],
}

impl Timeline {
    /// Its logins and labels made the reader's `names`, shared with every other item's.
    pub(super) fn intern(&mut self, names: &mut Interner) {
        for entry in &mut self.entries {
            entry.login = names.get(&entry.login);
            if let Some(label) = &mut entry.label {
                *label = names.get(label);
            }
        }
    }

    /// `older`'s entries before these: what the pages going back carried.
    pub(super) fn prepend(&mut self, older: Timeline) {
        let mut entries = older.entries;
        entries.append(&mut self.entries);
        self.entries = reduce(entries);
        self.after = older.after;
        self.before = older.before;
        self.doubt |= older.doubt;
        for (mine, theirs) in self.errors.iter_mut().zip(older.errors) {
            if theirs.is_some() {
                *mine = theirs;
            }
        }
    }

    pub(super) fn error(&self, read: TimelineRead) -> Option<&String> {
        self.errors[read as usize].as_ref()
    }

    pub(super) fn events(&self) -> Vec<Event> {
        self.answering(TimelineRead::Events)
            .map(|entry| Event {
                activity: entry.activity(TimelineRead::Events),
                name: match entry.what {
                    What::Event(name) => name.to_string(),
                    _ => String::new(),
                },
                label: entry.label.as_deref().map(str::to_string),
            })
            .collect()
    }

    pub(super) fn comments(&self) -> Vec<Comment> {
        self.answering(TimelineRead::Comments)
            .map(|entry| Comment {
                activity: entry.activity(TimelineRead::Comments),
                body: entry.body.as_deref().unwrap_or_default().to_string(),
            })
            .collect()
    }

    pub(super) fn timeline(&self) -> Vec<Activity> {
        self.answering(TimelineRead::Timeline)
            .map(|entry| entry.activity(TimelineRead::Timeline))
            .collect()
    }

    fn answering(&self, read: TimelineRead) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(move |entry| entry.answers(read))
    }
}

/// What a read of an item's timeline asks of it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ask<'a> {
    /// The events, for the date of the newest `labeled` event of one of `labels` (the stale
    /// label, one of the item's own) and what came after it.
    Events { labels: &'a [Rc<str>] },
    /// The comments created at or after a time.
    CommentsSince(DateTime<Utc>),
    /// The timeline's reviews and pushes after a time (`None`: not known, so every one).
    TimelineSince(Option<DateTime<Utc>>),
}

/// Whether the entries kept leave `ask` open, so the older ones must be read: never when they
/// are the whole timeline; else when what is asked may reach back past them. The events are
/// asked for the stale label's date, so they are settled when each label it may be has a
/// `labeled` event among the entries kept (everything after it is kept, and no older entry is
/// newer); a time asked is settled when it is after every entry left out.
pub(super) fn leaves_open(timeline: &Timeline, ask: Ask<'_>) -> bool {
    let Some(after) = timeline.after else {
        return false;
    };
    match ask {
        Ask::Events { labels } => {
            labels.is_empty()
                || labels.iter().any(|label| {
                    !timeline.entries.iter().any(|entry| {
                        entry.what == What::Event("labeled")
                            && entry.at > after
                            && entry
                                .label
                                .as_deref()
                                .is_some_and(|name| name.eq_ignore_ascii_case(label))
                    })
                })
        }
        Ask::CommentsSince(since) => since <= after,
        Ask::TimelineSince(since) => since.is_none_or(|since| since <= after),
    }
}

/// An item's timeline as the reader keeps it, and which of its reads are still to come.
pub(super) struct ItemEntry {
    pub(super) timeline: Timeline,
    /// The labels the stale label may be: the item's own (only the stale label, when the
    /// reader knows it).
    pub(super) labels: Vec<Rc<str>>,
    /// The time the comments were read since (the stale label's date), for the timeline read.
    pub(super) since: Option<DateTime<Utc>>,
    /// The events were answered from entries after this time alone.
    pub(super) events_after: Option<DateTime<Utc>>,
    taken: [bool; 3],
}

impl ItemEntry {
    pub(super) fn new(timeline: Timeline, labels: Vec<Rc<str>>) -> ItemEntry {
        ItemEntry {
            timeline,
            labels,
            since: None,
            events_after: None,
            taken: [false; 3],
        }
    }

    /// Marks `read` as done; whether it was still to come.
    pub(super) fn take(&mut self, read: TimelineRead) -> bool {
        !std::mem::replace(&mut self.taken[read as usize], true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(day: u32) -> DateTime<Utc> {
        format!("2026-01-{day:02}T00:00:00Z").parse().unwrap()
    }

    fn entry(day: u32, what: What, login: &str, is_bot: bool) -> Entry {
        Entry {
            at: at(day),
            what,
            login: login.into(),
            is_bot,
            label: None,
            body: None,
        }
    }

    fn labeled(day: u32, label: &str) -> Entry {
        Entry {
            label: Some(label.into()),
            ..entry(day, What::Event("labeled"), "bot", true)
        }
    }

    #[test]
    fn of_each_kind_only_the_newest_is_kept_but_labels_and_markers() {
        let mut marker = entry(2, What::Comment, "me", false);
        marker.body = Some("<!-- gh-sweep:mark-stale -->".into());
        let entries = vec![
            labeled(1, "Stale"),
            marker,
            entry(3, What::Comment, "ann", false),
            entry(4, What::Comment, "bob", false),
            entry(5, What::Comment, "dependabot", true),
            entry(6, What::Comment, "dependabot", true),
            entry(7, What::Event("mentioned"), "ann", false),
            entry(8, What::Event("pinned"), "ann", false),
            entry(8, What::Event("assigned"), "cat", false),
        ];
        let kept: Vec<(u32, Rc<str>)> = reduce(entries)
            .iter()
            .map(|entry| {
                (
                    entry.at.format("%d").to_string().parse().unwrap(),
                    entry.login.clone(),
                )
            })
            .collect();
        let expected: Vec<(u32, Rc<str>)> = [
            (1, "bot"),
            (2, "me"),
            (4, "bob"),
            (6, "dependabot"),
            (7, "ann"),
            (8, "ann"),
            (8, "cat"),
        ]
        .into_iter()
        .map(|(day, login)| (day, login.into()))
        .collect();
        assert_eq!(kept, expected);
    }

    #[test]
    fn the_newest_entries_settle_a_label_after_the_oldest_of_them() {
        let labels: Vec<Rc<str>> = vec!["Stale".into()];
        let mut timeline = Timeline {
            entries: vec![labeled(10, "stale"), entry(12, What::Comment, "ann", false)],
            after: Some(at(5)),
            ..Timeline::default()
        };
        let events = Ask::Events { labels: &labels };
        assert!(!leaves_open(&timeline, events), "the label is on the page");
        assert!(!leaves_open(&timeline, Ask::CommentsSince(at(10))));
        assert!(
            leaves_open(&timeline, Ask::CommentsSince(at(5))),
            "reaches back"
        );
        assert!(leaves_open(&timeline, Ask::TimelineSince(None)));
        assert!(!leaves_open(&timeline, Ask::TimelineSince(Some(at(6)))));
        timeline.entries.remove(0);
        assert!(
            leaves_open(&timeline, events),
            "the label is older than the page"
        );
        assert!(leaves_open(&timeline, Ask::Events { labels: &[] }));
        timeline.after = None;
        assert!(!leaves_open(&timeline, events), "the whole timeline");
    }
}
