//! What `store copy` moves between backends: every table both backends have, as rows of plain
//! cells (integers, text, times as RFC 3339 text), in an order that keeps references valid
//! (runs before their items and journal). Each backend reads and writes these rows its own
//! way; the engine never sees them.

/// A column's kind, which decides how a backend reads and writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ColumnKind {
    Int,
    Text,
    Time,
}

/// A table both backends keep, with its columns.
pub(crate) struct Table {
    pub name: &'static str,
    pub columns: &'static [(&'static str, ColumnKind)],
}

use ColumnKind::{Int, Text, Time};

/// Every table `store copy` moves, parents first.
pub(crate) const TABLES: &[Table] = &[
    Table {
        name: "runs",
        columns: &[
            ("id", Int),
            ("command", Text),
            ("argv", Text),
            ("started_at", Time),
            ("finished_at", Time),
            ("stopped", Text),
            ("exit_code", Int),
            ("recap", Text),
            ("pid", Int),
            ("host", Text),
            ("account", Text),
            ("run_uid", Text),
            ("boot_id", Text),
            ("pid_ns", Text),
            ("start_time", Int),
            ("heartbeat_at", Time),
            ("taken_over_at", Time),
            ("taken_over_by", Text),
        ],
    },
    Table {
        name: "run_items",
        columns: &[
            ("run_id", Int),
            ("item", Text),
            ("outcome", Text),
            ("phase", Text),
            ("disposition", Text),
            ("detail", Text),
        ],
    },
    Table {
        name: "journal",
        columns: &[
            ("id", Int),
            ("run_id", Int),
            ("item", Text),
            ("repo", Text),
            ("action", Text),
            ("intent_at", Time),
            ("outcome", Text),
            ("outcome_at", Time),
            ("detail", Text),
            ("intent_tick", Int),
            ("outcome_tick", Int),
        ],
    },
    Table {
        name: "stale_marks",
        columns: &[
            ("item", Text),
            ("label", Text),
            ("labeled_at", Time),
            ("last_write_at", Time),
        ],
    },
    Table {
        name: "queue",
        columns: &[
            ("key", Text),
            ("kind", Text),
            ("repo", Text),
            ("pr", Int),
            ("head_sha", Text),
            ("status", Text),
            ("attempts", Int),
            ("max_attempts", Int),
            ("owner", Text),
            ("leased_until", Time),
            ("enqueued_at", Time),
            ("updated_at", Time),
            ("failed_at", Time),
            ("last_error", Text),
        ],
    },
    Table {
        name: "merge_gate",
        columns: &[
            ("repo", Text),
            ("pr", Int),
            ("head_sha", Text),
            ("approved_at", Time),
            ("ci_passed_at", Time),
            ("blocked", Text),
            ("merged_at", Time),
            ("observed_at", Time),
        ],
    },
    Table {
        name: "sweep_budget",
        columns: &[("repo", Text), ("pr", Int), ("budget", Text)],
    },
    Table {
        name: "http_cache",
        columns: &[
            ("url", Text),
            ("etag", Text),
            ("last_modified", Text),
            ("body", Text),
            ("next", Text),
            ("stored_at", Time),
            ("token", Text),
        ],
    },
    Table {
        name: "repositories",
        columns: &[("id", Int), ("full_name", Text), ("seen_at", Time)],
    },
];

/// One cell of a copied row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cell {
    Null,
    Int(i64),
    /// Text, or a time as RFC 3339.
    Text(String),
}

/// A whole store's rows, table by table in [`TABLES`] order.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Dump {
    pub tables: Vec<Vec<Vec<Cell>>>,
}

impl Dump {
    /// How many rows each table holds, by name.
    pub fn counts(&self) -> Vec<(&'static str, usize)> {
        TABLES
            .iter()
            .zip(&self.tables)
            .map(|(table, rows)| (table.name, rows.len()))
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.tables.iter().all(Vec::is_empty)
    }
}

/// A time as the copy carries it.
pub(crate) fn time_text(time: chrono::DateTime<chrono::Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}
