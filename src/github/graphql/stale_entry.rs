//! What a page of the stale query carried of one item's timeline, kept by the reader until the
//! item's reads (events, comments, timeline) have each taken it once.

use serde_json::Value;

/// Open issues (and, apart, open PRs) per page at first.
pub(super) const ITEMS_PER_PAGE: u64 = 100;

/// What a page carried of one item's timeline, and which of its reads are still to come.
pub(super) struct ItemEntry {
    /// The timeline entries read so far, oldest first.
    pub(super) nodes: Vec<Value>,
    /// Where the older entries end, when the page left some out.
    pub(super) before: Option<String>,
    pub(super) events: bool,
    pub(super) comments: bool,
    pub(super) timeline: bool,
}

/// Which read of an item's timeline.
#[derive(Clone, Copy)]
pub(super) enum Read {
    Events,
    Comments,
    Timeline,
}

impl ItemEntry {
    pub(super) fn new(node: &Value) -> ItemEntry {
        let timeline = node.get("timelineItems").cloned().unwrap_or(Value::Null);
        let more = timeline
            .pointer("/pageInfo/hasPreviousPage")
            .and_then(Value::as_bool)
            == Some(true);
        ItemEntry {
            nodes: timeline
                .get("nodes")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            before: timeline
                .pointer("/pageInfo/startCursor")
                .and_then(Value::as_str)
                .filter(|_| more)
                .map(str::to_string),
            events: true,
            comments: true,
            timeline: true,
        }
    }

    /// Marks `read` as done; whether it was still to come.
    pub(super) fn take(&mut self, read: Read) -> bool {
        let flag = match read {
            Read::Events => &mut self.events,
            Read::Comments => &mut self.comments,
            Read::Timeline => &mut self.timeline,
        };
        std::mem::replace(flag, false)
    }
}
