//! What the PostgreSQL store must do beyond the contract every backend keeps: hold across
//! connections standing for separate hosts (the PR's advisory lock in a claim, the item's row
//! lock in a first write, migrations under an advisory lock), and tell a dead run of another
//! host by its heartbeat.

use std::time::Duration;

use chrono::Utc;

use super::test_server::fresh_database;
use super::{is_failure, Liveness, PostgresStore, Target};
use crate::item::{ItemRef, RepoRef};
use crate::policy::write::JournalWrite;
use crate::store::queue::{merge_key, NewRow};
use crate::store::{MergeQueue, RunLog, Store, WriteJournal};

fn repo() -> RepoRef {
    "o/r".parse().unwrap()
}

fn target(url: &str, host: &str) -> Target {
    Target::new(url, host.into())
}

fn raw(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).unwrap()
}

fn label() -> JournalWrite {
    JournalWrite::AddLabels {
        labels: vec!["Stale".into()],
    }
}

#[test]
fn a_claim_on_another_host_skips_every_row_of_a_pr_being_claimed() {
    let url = fresh_database();
    let mut first = PostgresStore::open(&target(&url, "a")).unwrap();
    let mut second = PostgresStore::open(&target(&url, "b")).unwrap();
    let now = Utc::now();
    for head in ["a", "b"] {
        let key = merge_key(&repo(), 7, head);
        let row = NewRow {
            key: &key,
            kind: "merge",
            repo: &repo(),
            pr: 7,
            head_sha: Some(head),
            max_attempts: 3,
        };
        first.enqueue(&row, now).unwrap();
    }
    let lease = chrono::Duration::minutes(30);
    let mut other = None;
    // While the first host decides on #7's first row (inside its claim), the second claims.
    let claimed = first
        .claim(now, "run-1", &[repo()], lease, &mut |_, _, _| {
            other = Some(
                second
                    .claim(now, "run-2", &[repo()], lease, &mut |_, _, _| true)
                    .unwrap(),
            );
            true
        })
        .unwrap();
    assert!(claimed.is_some());
    assert_eq!(other, Some(None), "#7 was being claimed on the other host");
}

#[test]
fn an_items_first_write_on_another_host_waits_for_the_items_row_and_then_sees_its_write() {
    let url = fresh_database();
    let store = PostgresStore::open(&target(&url, "a")).unwrap();
    let writer = PostgresStore::open(&target(&url, "b")).unwrap();
    let run = store
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    let other = writer
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    let item = ItemRef::new(&repo(), 3);
    let read_mark = 0;
    // Another host's first write to #3, holding the item's row lock until it commits.
    // (Written before, so the row is there: the lock, not the insert, is what waits.)
    let mut client = raw(&url);
    client
        .execute("INSERT INTO item_locks (item) VALUES ('o/r#3')", &[])
        .unwrap();
    let mut holding = client.transaction().unwrap();
    holding
        .execute(
            "SELECT item FROM item_locks WHERE item = 'o/r#3' FOR UPDATE",
            &[],
        )
        .unwrap();
    let url_for_thread = url.clone();
    let checker = std::thread::spawn(move || {
        let store = PostgresStore::open(&target(&url_for_thread, "a")).unwrap();
        store.journal_intent_since(run, &item, &label(), read_mark)
    });
    std::thread::sleep(Duration::from_millis(300));
    holding
        .execute(
            "INSERT INTO journal (run_id, item, repo, action, intent_at) VALUES ($1, 'o/r#3', 'o/r', '{}', now())",
            &[&other],
        )
        .unwrap();
    holding.commit().unwrap();
    let first = checker.join().unwrap().unwrap();
    assert_eq!(
        first, None,
        "the other host's write came after this run read #3"
    );
}

#[test]
fn hosts_starting_at_once_on_a_new_database_migrate_it_once() {
    let url = fresh_database();
    let threads: Vec<_> = (0..4)
        .map(|host| {
            let url = url.clone();
            std::thread::spawn(move || {
                PostgresStore::open(&target(&url, &format!("h{host}"))).map(|_| ())
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap().unwrap();
    }
    let version: i64 = raw(&url)
        .query_one("SELECT version FROM schema_version", &[])
        .unwrap()
        .get(0);
    assert_eq!(version, super::SCHEMA_VERSION);
}

#[test]
fn a_run_whose_heartbeat_is_stale_or_taken_over_journals_no_more_intents() {
    let url = fresh_database();
    let store = PostgresStore::open(&target(&url, "a")).unwrap();
    let run = store
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    let item = ItemRef::new(&repo(), 3);
    store.journal_intent(run, &item, &label()).unwrap();
    let mut client = raw(&url);
    client
        .execute(
            "UPDATE runs SET heartbeat_at = now() - interval '1 hour' WHERE id = $1",
            &[&run],
        )
        .unwrap();
    let stale = store.journal_intent(run, &item, &label()).unwrap_err();
    let stale = anyhow::Error::from(stale);
    assert!(is_failure(&stale), "{stale:#}");
    assert!(format!("{stale:#}").contains("no longer holds its heartbeat"));
    client
        .execute(
            "UPDATE runs SET heartbeat_at = now(), taken_over_at = now() WHERE id = $1",
            &[&run],
        )
        .unwrap();
    assert!(store
        .journal_intent_since(run, &item, &label(), i64::MAX)
        .is_err());
    let journaled: i64 = client
        .query_one("SELECT count(*) FROM journal", &[])
        .unwrap()
        .get(0);
    assert_eq!(journaled, 1);
}

#[test]
fn a_run_that_cannot_renew_its_heartbeat_stops_writing_at_its_local_deadline() {
    let url = fresh_database();
    let mut cut_off = target(&url, "a");
    // The heartbeat thread never gets to renew: as if the database were out of reach.
    cut_off.liveness = Liveness {
        renew_every: Duration::from_secs(3600),
        bound: Duration::from_secs(2),
        write_timeout: Duration::from_secs(1),
    };
    let store = PostgresStore::open(&cut_off).unwrap();
    let run = store
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    let item = ItemRef::new(&repo(), 3);
    store.journal_intent(run, &item, &label()).unwrap();
    std::thread::sleep(Duration::from_millis(1100));
    let error = store.journal_intent(run, &item, &label()).unwrap_err();
    let error = anyhow::Error::from(error);
    assert!(is_failure(&error));
    assert!(
        format!("{error:#}").contains("could not renew its heartbeat"),
        "{error:#}"
    );
}

#[test]
fn the_heartbeat_is_renewed_with_the_databases_clock_while_a_run_works() {
    let url = fresh_database();
    let mut quick = target(&url, "a");
    quick.liveness.renew_every = Duration::from_millis(200);
    let store = PostgresStore::open(&quick).unwrap();
    let run = store.start_run("sweep", "gh-sweep sweep").unwrap();
    let mut client = raw(&url);
    let beat = |client: &mut postgres::Client| -> chrono::DateTime<Utc> {
        client
            .query_one("SELECT heartbeat_at FROM runs WHERE id = $1", &[&run])
            .unwrap()
            .get(0)
    };
    let started = beat(&mut client);
    std::thread::sleep(Duration::from_millis(700));
    assert!(beat(&mut client) > started);
}

#[test]
fn another_hosts_dead_run_is_settled_only_past_the_bound_plus_the_write_timeout_and_noted() {
    let url = fresh_database();
    let dead_host = PostgresStore::open(&target(&url, "dead")).unwrap();
    let run = dead_host
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    let item = ItemRef::new(&repo(), 3);
    dead_host.journal_intent(run, &item, &label()).unwrap();
    drop(dead_host);
    let mut taker = target(&url, "taker");
    taker.liveness = Liveness {
        renew_every: Duration::from_secs(1),
        bound: Duration::from_secs(60),
        write_timeout: Duration::from_secs(30),
    };
    let store = PostgresStore::open(&taker).unwrap();
    let mut client = raw(&url);
    let age = |client: &mut postgres::Client, seconds: f64| {
        client
            .execute(
                "UPDATE runs SET heartbeat_at = now() - make_interval(secs => $2) WHERE id = $1",
                &[&run, &seconds],
            )
            .unwrap();
    };
    // Past the bound, but a write it sent may still land: not yet.
    age(&mut client, 75.0);
    assert!(store
        .unknown_writes(&[repo()], Utc::now())
        .unwrap()
        .is_empty());
    assert!(store.notes().is_empty());
    age(&mut client, 95.0);
    let unknown = store.unknown_writes(&[repo()], Utc::now()).unwrap();
    assert_eq!(unknown.len(), 1);
    let notes = store.notes();
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].starts_with(&format!("took over run {run} of host dead at ")),
        "{notes:?}"
    );
    let by: String = client
        .query_one("SELECT taken_over_by FROM runs WHERE id = $1", &[&run])
        .unwrap()
        .get(0);
    assert_eq!(by, "taker");
}

#[test]
fn sslmode_require_gets_no_plaintext_from_a_server_without_tls_and_says_so_without_the_password() {
    let url = super::test_server::fresh_database_on(super::test_server::plaintext_server());
    // A server without TLS: `prefer` on this machine falls back to plaintext...
    let prefer = url.replace("sslmode=disable", "sslmode=prefer");
    assert!(PostgresStore::open(&target(&prefer, "a")).is_ok());
    // ...`require` and `verify-full` never do.
    for mode in ["require", "verify-full", "verify-ca"] {
        let url = url.replace("sslmode=disable", &format!("sslmode={mode}"));
        let error = PostgresStore::open(&target(&url, "a")).err().unwrap();
        let message = format!("{error:#}");
        assert!(
            message.contains("cannot use the database postgres://postgres@127.0.0.1"),
            "{message}"
        );
        assert!(!message.contains(super::test_server::PASSWORD), "{message}");
    }
}

/// A database of every earlier schema version, with a finished run's rows (a label done on #3,
/// a close of unknown outcome on #4), migrates to this version and keeps working: the old
/// unknown write is settled by a new run, and the old done write, stamped before any tick,
/// counts as written before any read.
#[test]
fn a_database_of_every_earlier_version_migrates_with_its_rows() {
    use super::migrations::{self, MIGRATIONS, SCHEMA_VERSION};
    for version in 0..SCHEMA_VERSION {
        let url = fresh_database();
        let mut client = raw(&url);
        client
            .batch_execute("CREATE TABLE schema_version (version BIGINT NOT NULL)")
            .unwrap();
        for sql in &MIGRATIONS[..version as usize] {
            client.batch_execute(sql).unwrap();
        }
        client
            .execute(
                "INSERT INTO schema_version (version) VALUES ($1)",
                &[&version],
            )
            .unwrap();
        if version >= 1 {
            client
                .batch_execute(
                    "INSERT INTO runs (id, command, argv, started_at, finished_at, pid, host)
                     VALUES (1, 'stale-sweep', 'gh-sweep stale-sweep', now(), now(), 1, 'old-host');
                     SELECT setval(pg_get_serial_sequence('runs', 'id'), 1);
                     INSERT INTO journal (run_id, item, repo, action, intent_at, outcome, outcome_at) VALUES
                       (1, 'o/r#3', 'o/r', '{\"kind\":\"add-labels\",\"labels\":[\"Stale\"]}', now(), 'done', now()),
                       (1, 'o/r#4', 'o/r', '{\"kind\":\"close\",\"reason\":null}', now(), NULL, NULL);",
                )
                .unwrap();
        }
        drop(client);
        let store = PostgresStore::open(&target(&url, "a")).unwrap();
        assert_eq!(
            migrations::version(&mut store.client()).unwrap(),
            SCHEMA_VERSION
        );
        let run = store
            .start_run("stale-sweep", "gh-sweep stale-sweep")
            .unwrap();
        let mark = store.read_mark().unwrap();
        let unknown = store.unknown_writes(&[repo()], Utc::now()).unwrap();
        assert_eq!(
            unknown.len(),
            usize::from(version >= 1),
            "version {version}: {unknown:?}"
        );
        let item = ItemRef::new(&repo(), 3);
        assert!(
            store
                .journal_intent_since(run, &item, &label(), mark)
                .unwrap()
                .is_some(),
            "version {version}"
        );
    }
}

/// As on SQLite, a list of what changed since an instant (the recheck's `issues?since=`) is
/// neither kept nor looked up: its URL never comes again. An item's own answer is kept.
#[test]
fn the_shared_cache_keeps_no_list_of_changes() {
    use crate::http_cache::{Cached, ResponseCache};
    let url = fresh_database();
    // The store makes the schema; the cache is its own connection to it.
    let _store = PostgresStore::open(&target(&url, "host-a")).unwrap();
    let cache = super::http_cache::PostgresCache::open(&target(&url, "host-a")).unwrap();
    let answer = Cached {
        etag: Some("\"abc\"".into()),
        last_modified: None,
        body: "[]".into(),
        next: None,
        token: None,
    };
    let base = "https://api.github.com/repos/o/r";
    let changes = format!("{base}/issues?since=2026-12-01T10:00:00Z&state=all");
    let item = format!("{base}/issues/3");
    cache.keep(&changes, &answer);
    cache.keep(&item, &answer);
    assert!(cache.lookup(&changes).is_none());
    assert_eq!(cache.lookup(&item).map(|kept| kept.body), Some("[]".into()));
    let rows: i64 = raw(&url)
        .query_one("SELECT count(*) FROM http_cache", &[])
        .unwrap()
        .get(0);
    assert_eq!(rows, 1, "only the item's answer is stored");
}

/// One prune goes to the end of the retention, however many batches that takes (one batch of
/// each kind a call fell behind a 1,000-item sweep's additions), as SQLite's does.
#[test]
fn one_prune_forgets_every_row_past_the_retention_not_one_batch() {
    use crate::store::retention::PRUNE_BATCH;
    let url = fresh_database();
    let mut store = PostgresStore::open(&target(&url, "a")).unwrap();
    let run = store
        .start_run("stale-sweep", "gh-sweep stale-sweep")
        .unwrap();
    let rows = (2 * PRUNE_BATCH + PRUNE_BATCH / 2) as i64;
    let mut client = raw(&url);
    client
        .execute(
            "INSERT INTO journal (run_id, item, repo, action, intent_at, outcome, outcome_at)
             SELECT $1, 'o/r#' || i, 'o/r', '{\"kind\":\"close\",\"reason\":null}',
                    now() - interval '2 days', 'done', now() - interval '2 days'
             FROM generate_series(1, $2::bigint) AS i",
            &[&run, &rows],
        )
        .unwrap();
    client
        .execute(
            "INSERT INTO http_cache (url, body, stored_at)
             SELECT 'https://api.github.com/old/' || i, '[]', now() - interval '8 days'
             FROM generate_series(1, $1::bigint) AS i",
            &[&rows],
        )
        .unwrap();
    let pruned = store.prune(Utc::now()).unwrap();
    assert_eq!(pruned.journal, rows as usize);
    assert_eq!(pruned.cache, rows as usize);
    let mut left = |table: &str| -> i64 {
        client
            .query_one(&format!("SELECT count(*) FROM {table}"), &[])
            .unwrap()
            .get(0)
    };
    let journal = left("journal");
    assert_eq!((journal, left("http_cache")), (0, 0));
}
