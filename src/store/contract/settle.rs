//! The contract of a run's settlement ([`Store::settle`]) on every backend that a second
//! connection can reach (a SQLite file, a PostgreSQL database): a settlement lands whole or
//! not at all, and a run that no longer holds its heartbeat applies none of it and is told
//! so. A check reaches the database beside the store ([`Beside`]) for what no store method
//! does: making one effect fail inside the settlement, and standing for another run that
//! takes this one over (or for a pause past the heartbeat's bound).

use std::path::PathBuf;

use chrono::Duration;

use super::{add, claim_any, now, repo};
use crate::item::ItemRef;
use crate::policy::lease::{LeaseOutcome, Owner};
use crate::policy::sweep::{Budget, Gate};
use crate::store::queue::merge_key;
use crate::store::{Applied, Effect, Store, StoreError};

/// A second way into a store's database.
pub(super) enum Beside {
    File(PathBuf),
    #[cfg(feature = "postgres")]
    Postgres(String),
}

impl Beside {
    fn run(&self, sql: &str) {
        match self {
            Beside::File(path) => rusqlite::Connection::open(path)
                .unwrap()
                .execute_batch(sql)
                .unwrap(),
            #[cfg(feature = "postgres")]
            Beside::Postgres(url) => ::postgres::Client::connect(url, ::postgres::NoTls)
                .unwrap()
                .batch_execute(sql)
                .unwrap(),
        }
    }

    /// Every insert into `table` fails from now on (as a broken constraint or a full disk
    /// would make one statement fail).
    fn refuse_inserts(&self, table: &str) {
        let sql = match self {
            Beside::File(_) => format!(
                "CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table}
                 BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;"
            ),
            #[cfg(feature = "postgres")]
            Beside::Postgres(_) => format!(
                "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql
                     AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
                 CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table}
                     FOR EACH ROW EXECUTE FUNCTION refuse();"
            ),
        };
        self.run(&sql);
    }

    /// Another run takes run `run_id` over, as one that found it dead does.
    fn take_over(&self, run_id: i64) {
        self.run(&format!(
            "UPDATE runs SET taken_over_at = {}, taken_over_by = 'another-host' WHERE id = {run_id}",
            self.an_hour_ago()
        ));
    }

    /// Run `run_id`'s last heartbeat was an hour ago: it was paused past its bound (and its
    /// heartbeat is never renewed again).
    fn pause_past_bound(&self, run_id: i64) {
        self.run(&format!(
            "UPDATE runs SET heartbeat_at = {} WHERE id = {run_id}",
            self.an_hour_ago()
        ));
    }

    /// An hour ago on the clock the backend stamps heartbeats with.
    fn an_hour_ago(&self) -> String {
        match self {
            Beside::File(_) => {
                let at = crate::clock::wall() - Duration::hours(1);
                format!("'{}'", crate::store::sqlite::stamp(at))
            }
            #[cfg(feature = "postgres")]
            Beside::Postgres(_) => "now() - interval '1 hour'".into(),
        }
    }
}

fn item(pr: u64) -> ItemRef {
    ItemRef::new(&repo(), pr)
}

fn stale_mark(pr: u64) -> Effect {
    Effect::RecordStaleMark {
        item: item(pr),
        label: "Stale".into(),
        labeled_at: now(),
        last_write_at: now(),
    }
}

fn enqueue(pr: u64) -> Effect {
    Effect::Enqueue {
        key: merge_key(&repo(), pr, "h"),
        repo: repo(),
        pr,
        head_sha: "h".into(),
        max_attempts: 3,
        now: now(),
    }
}

fn lease(key: &str, run_id: i64, outcome: LeaseOutcome) -> Effect {
    Effect::Lease {
        key: key.into(),
        owner: Owner::run(run_id),
        outcome,
        started: now(),
        now: now() + Duration::minutes(1),
    }
}

/// A run holding the lease of PR 1's row; the row's key.
fn run_holding_a_lease(store: &mut dyn Store) -> (i64, String) {
    let run = store.start_run("sweep", "gh-sweep sweep").unwrap();
    let key = add(store, 1, "a", 3, 0);
    let owner = Owner::run(run);
    assert_eq!(
        claim_any(store, owner.as_str(), now()),
        Some((key.clone(), 1))
    );
    (run, key)
}

/// How many of the rows the effects on PRs 2 to 5 below make are in the store.
fn rows_of(store: &dyn Store) -> usize {
    let marks = usize::from(store.stale_mark(&item(2), "Stale").unwrap().is_some());
    let queued = store.queue_rows(&repo(), 3).unwrap().len();
    let gates = usize::from(store.gate(&item(4)).unwrap().is_some());
    let budgets = usize::from(store.budget(&item(5)).unwrap() != Budget::default());
    marks + queued + gates + budgets
}

/// An item's effects of which the last one fails leave the store as it was: none of them
/// applied, the lease still held. Without the failing one, the rest apply after (the
/// failure left no transaction open).
pub(super) fn settle_is_whole_or_nothing(store: &mut dyn Store, beside: &Beside) {
    let (run, key) = run_holding_a_lease(store);
    let owner = Owner::run(run);
    beside.refuse_inserts("sweep_budget");
    let gate = Gate {
        head_sha: "h".into(),
        ..Gate::default()
    };
    let effects = vec![
        stale_mark(2),
        enqueue(3),
        lease(&key, run, LeaseOutcome::Complete),
        Effect::RecordGates(vec![(item(4), gate, now())]),
        Effect::RecordBudget {
            item: item(5),
            budget: Budget {
                attempts: 2,
                ..Budget::default()
            },
        },
    ];
    let error = store.settle(run, &effects).unwrap_err();
    assert!(
        !matches!(error.root(), StoreError::LostLease(_)),
        "the refused insert failed it, not the heartbeat: {error}"
    );
    assert_eq!(rows_of(store), 0, "no effect of the settlement applied");
    assert_eq!(store.held_by(owner.as_str()).unwrap(), vec![key.clone()]);
    let applied = store.settle(run, &effects[..4]).unwrap();
    assert_eq!(
        applied,
        Applied {
            effects: 4,
            not_held: 0
        }
    );
    assert_eq!(
        rows_of(store),
        3,
        "a stale mark, a queued row, a gate entry"
    );
    assert!(store.held_by(owner.as_str()).unwrap().is_empty());
}

/// A run that another run took over applies nothing of a settlement, and is told so
/// ([`StoreError::LostLease`]); while it held its heartbeat, its settlements applied.
pub(super) fn settle_is_refused_to_a_run_taken_over(store: &mut dyn Store, beside: &Beside) {
    refused_after(store, |run| beside.take_over(run));
}

/// A run paused past its heartbeat's bound applies nothing of a settlement, and is told so.
pub(super) fn settle_is_refused_past_the_heartbeat_bound(store: &mut dyn Store, beside: &Beside) {
    refused_after(store, |run| beside.pause_past_bound(run));
}

fn refused_after(store: &mut dyn Store, lose: impl FnOnce(i64)) {
    let (run, key) = run_holding_a_lease(store);
    let owner = Owner::run(run);
    assert_eq!(store.settle(run, &[stale_mark(2)]).unwrap().effects, 1);
    assert_eq!(rows_of(store), 1);
    lose(run);
    let effects = [
        enqueue(3),
        lease(&key, run, LeaseOutcome::Release),
        Effect::RecordGate {
            item: item(4),
            gate: Gate::default(),
            now: now(),
        },
    ];
    let error = store.settle(run, &effects).unwrap_err();
    assert!(
        matches!(error.root(), StoreError::LostLease(_)),
        "refused for the heartbeat: {error}"
    );
    assert!(error.is_backend(), "a store failure, which stops the run");
    assert!(error.root().to_string().contains("heartbeat"), "{error}");
    assert_eq!(rows_of(store), 1, "nothing more applied");
    assert_eq!(store.held_by(owner.as_str()).unwrap(), vec![key]);
}

/// The fence is the settling run's own heartbeat: of two runs of one store, the one taken
/// over applies nothing, and the one still holding its heartbeat goes on applying its
/// settlements (what another run lost is not this one's to be refused for).
pub(super) fn settle_is_fenced_on_its_own_run(store: &mut dyn Store, beside: &Beside) {
    let (lost, key) = run_holding_a_lease(store);
    let held = store.start_run("poll", "gh-sweep poll").unwrap();
    beside.take_over(lost);
    let error = store
        .settle(lost, &[lease(&key, lost, LeaseOutcome::Release)])
        .unwrap_err();
    assert!(
        matches!(error.root(), StoreError::LostLease(_)),
        "refused for the heartbeat: {error}"
    );
    let applied = store.settle(held, &[stale_mark(2), enqueue(3)]).unwrap();
    assert_eq!(applied.effects, 2);
    assert_eq!(rows_of(store), 2, "a stale mark and a queued row");
    assert_eq!(store.held_by(Owner::run(lost).as_str()).unwrap(), vec![key]);
}
