//! The PostgreSQL schema and its migrations: the same tables as SQLite's, typed for
//! PostgreSQL (times as `timestamptz`), plus each run's heartbeat. Versions are counted in
//! `schema_version`; every step runs in a transaction holding an advisory lock, so hosts that
//! start at once on a new database migrate it exactly once.

use postgres::Client;

use crate::exit::Fatal;

/// Any number that no other program's advisory lock on the same database is likely to use:
/// "gh-sweep" read as ASCII.
pub(super) const MIGRATION_LOCK: i64 = 0x6768_2d73_7765_6570;

/// Each entry migrates the schema from its index to the next version.
pub(super) const MIGRATIONS: &[&str] = &[
    // 0 -> 1: every table SQLite's version 9 has; the heartbeat of runs across hosts and who
    // took a dead run over; a row per item written, which an item's first write locks.
    "CREATE TABLE runs (
        id BIGSERIAL PRIMARY KEY,
        command TEXT NOT NULL,
        argv TEXT NOT NULL,
        started_at TIMESTAMPTZ NOT NULL,
        finished_at TIMESTAMPTZ,
        stopped TEXT,
        exit_code BIGINT,
        recap TEXT,
        pid BIGINT,
        host TEXT,
        heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        taken_over_at TIMESTAMPTZ,
        taken_over_by TEXT
     );
     CREATE TABLE run_items (
        run_id BIGINT NOT NULL REFERENCES runs(id),
        item TEXT NOT NULL,
        outcome TEXT NOT NULL,
        phase TEXT,
        disposition TEXT,
        detail TEXT,
        PRIMARY KEY (run_id, item)
     );
     CREATE TABLE journal (
        id BIGSERIAL PRIMARY KEY,
        run_id BIGINT NOT NULL REFERENCES runs(id),
        item TEXT NOT NULL,
        repo TEXT NOT NULL,
        action TEXT NOT NULL,
        intent_at TIMESTAMPTZ NOT NULL,
        outcome TEXT,
        outcome_at TIMESTAMPTZ,
        detail TEXT
     );
     CREATE INDEX journal_open ON journal(repo) WHERE outcome IS NULL OR outcome = 'unknown';
     CREATE INDEX journal_item ON journal(item, id);
     CREATE TABLE stale_marks (
        item TEXT PRIMARY KEY,
        label TEXT NOT NULL,
        labeled_at TIMESTAMPTZ NOT NULL,
        last_write_at TIMESTAMPTZ NOT NULL
     );
     CREATE TABLE queue (
        key TEXT PRIMARY KEY,
        kind TEXT NOT NULL,
        repo TEXT NOT NULL,
        pr BIGINT NOT NULL,
        head_sha TEXT,
        status TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        max_attempts INTEGER NOT NULL DEFAULT 3,
        owner TEXT,
        leased_until TIMESTAMPTZ,
        enqueued_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        failed_at TIMESTAMPTZ,
        last_error TEXT
     );
     CREATE INDEX queue_pr ON queue(repo, pr);
     CREATE INDEX queue_claimable ON queue(status, enqueued_at);
     CREATE TABLE merge_gate (
        repo TEXT NOT NULL,
        pr BIGINT NOT NULL,
        head_sha TEXT NOT NULL,
        approved_at TIMESTAMPTZ,
        ci_passed_at TIMESTAMPTZ,
        blocked TEXT,
        merged_at TIMESTAMPTZ,
        observed_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (repo, pr)
     );
     CREATE TABLE sweep_budget (
        repo TEXT NOT NULL,
        pr BIGINT NOT NULL,
        budget TEXT NOT NULL,
        PRIMARY KEY (repo, pr)
     );
     CREATE TABLE http_cache (
        url TEXT PRIMARY KEY,
        etag TEXT,
        last_modified TEXT,
        body TEXT NOT NULL,
        next TEXT,
        stored_at TIMESTAMPTZ NOT NULL,
        token TEXT
     );
     CREATE TABLE item_locks (
        item TEXT PRIMARY KEY
     );
     CREATE TABLE repositories (
        id BIGINT PRIMARY KEY,
        full_name TEXT NOT NULL,
        seen_at TIMESTAMPTZ NOT NULL
     );",
    // 1 -> 2: which GitHub account each run acts as (the write pacing counts every host's runs
    // of one account), and what the pacing and `prune` look up without reading every row.
    "ALTER TABLE runs ADD COLUMN account TEXT;
     CREATE INDEX runs_account ON runs(account);
     CREATE INDEX journal_run_intent ON journal(run_id, intent_at);
     CREATE INDEX http_cache_stored ON http_cache(stored_at);",
    // 2 -> 3: the room an item's first write reserves for its later writes under the
    // account's pacing, so that concurrent runs never take it.
    "ALTER TABLE journal ADD COLUMN reserved BIGINT NOT NULL DEFAULT 0;",
    // 3 -> 4: a run known by what cannot collide (a random id, the kernel's boot id, its PID
    // namespace and its process's start time); the journal stamped with ticks of one sequence
    // of the database, so runs on hosts with different clocks compare on one.
    "ALTER TABLE runs ADD COLUMN run_uid TEXT, ADD COLUMN boot_id TEXT, ADD COLUMN pid_ns TEXT,
         ADD COLUMN start_time BIGINT;
     ALTER TABLE journal ADD COLUMN intent_tick BIGINT, ADD COLUMN outcome_tick BIGINT;
     CREATE SEQUENCE journal_ticks;",
    // 4 -> 5: what `poll` remembers of each repository's last tick.
    "CREATE TABLE poll_memory (
        repo TEXT PRIMARY KEY,
        memory TEXT NOT NULL,
        stored_at TIMESTAMPTZ NOT NULL
     );",
    // 5 -> 6: the check that no other run wrote an item since this run read it reads, by
    // index, only the writes in flight or settled after the read (as SQLite's 15 -> 16).
    "CREATE INDEX journal_item_tick ON journal(item, outcome_tick);",
];

pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The schema version a database is at (0 when gh-sweep never migrated it).
pub(super) fn version(client: &mut Client) -> crate::store::Result<i64> {
    let exists: bool = client
        .query_one("SELECT to_regclass('schema_version') IS NOT NULL", &[])?
        .get(0);
    if !exists {
        return Ok(0);
    }
    let row = client.query_opt("SELECT version FROM schema_version", &[])?;
    Ok(row.map_or(0, |row| row.get::<_, i64>(0)))
}

/// Runs the migrations. The advisory lock is taken inside each step's transaction and the
/// version read after it, so a host that waited on another's migration sees it done.
pub(super) fn migrate(client: &mut Client, shown: &str) -> anyhow::Result<()> {
    loop {
        let mut transaction = client.transaction()?;
        transaction.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        transaction
            .batch_execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")?;
        let version: i64 = transaction
            .query_opt("SELECT version FROM schema_version", &[])?
            .map_or(0, |row| row.get(0));
        if version > SCHEMA_VERSION {
            return Err(Fatal::Usage(format!(
                "the database {shown} has schema version {version}, newer than this gh-sweep knows ({SCHEMA_VERSION}): upgrade gh-sweep, or pass --db to use another database"
            ))
            .into());
        }
        if version == SCHEMA_VERSION {
            transaction.commit()?;
            return Ok(());
        }
        transaction.batch_execute(MIGRATIONS[version as usize])?;
        transaction.execute("DELETE FROM schema_version", &[])?;
        transaction.execute(
            "INSERT INTO schema_version (version) VALUES ($1)",
            &[&(version + 1)],
        )?;
        transaction.commit()?;
    }
}
