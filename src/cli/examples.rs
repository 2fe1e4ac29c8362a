//! Each subcommand's help epilogue: its examples (gh's habit: real command lines, each one
//! accepted as written; a test parses them), then the exit codes.

use crate::exit::HELP as AFTER_HELP;

pub(super) const STALE_SWEEP_EXAMPLES: &str =
    "  # What the rules would do, and why; nothing is written
  $ gh-sweep stale-sweep --repo octo/demo --dry-run

  # On a terminal: show the planned writes and ask (default: no)
  $ gh-sweep stale-sweep --repo octo/demo

  # From cron: write without asking, one JSON line per run
  $ gh-sweep stale-sweep --repo octo/demo --yes --json

  # Take the rules from an actions/stale workflow
  $ gh-sweep stale-sweep --repo octo/demo --from-workflow .github/workflows/stale.yml --dry-run

  # Again, only the items a recap left: paste its rerun line
  $ gh-sweep stale-sweep --repo octo/demo --only 'octo/demo#12,#15,#40-#44'
";

pub(super) const POLL_EXAMPLES: &str = "  # One tick over a repository: enqueue what is eligible
  $ gh-sweep poll --repo octo/demo

  # Every repository of an organisation, from cron
  $ gh-sweep poll --org octo --json

  # Ask before enqueueing
  $ gh-sweep poll --repo octo/demo --confirm
";

pub(super) const SWEEP_EXAMPLES: &str = "  # What would be merged, leasing nothing
  $ gh-sweep sweep --repo octo/demo --dry-run

  # From cron: merge without asking
  $ gh-sweep sweep --repo octo/demo --yes --json
";

pub(super) const CLASSIFY_STALE_EXAMPLES: &str =
    "  # Every issue and PR's disposition by the stale rules, and why
  $ gh-sweep classify stale --repo octo/demo

  # The same on a saved snapshot, reading nothing from GitHub
  $ gh-sweep classify stale --snapshot fixtures/demo-snapshot.json

  # The [stale] table in effect, from a workflow
  $ gh-sweep classify stale --from-workflow .github/workflows/stale.yml --print-config
";

pub(super) const CLASSIFY_EXAMPLES: &str = "  $ gh-sweep classify stale --repo octo/demo
  $ gh-sweep classify merge --repo octo/demo
";

pub(super) const CLASSIFY_MERGE_EXAMPLES: &str = "  # Why is my PR not merging?
  $ gh-sweep classify merge --repo octo/demo --only 7

  # Every open PR of an organisation
  $ gh-sweep classify merge --org octo
";

pub(super) const RECAP_EXAMPLES: &str = "  # The latest run's recap
  $ gh-sweep recap

  # Recent runs, one line each, then one of them as Markdown
  $ gh-sweep recap --list
  $ gh-sweep recap 12 --markdown

  # A write of unknown outcome, checked by hand
  $ gh-sweep recap --acknowledge 'octo/demo#12'
";

pub(super) const COMPLETIONS_EXAMPLES: &str =
    "  $ gh-sweep completions bash > ~/.local/share/bash-completion/completions/gh-sweep
  $ gh-sweep completions zsh > ~/.zfunc/_gh-sweep
  $ gh-sweep completions fish > ~/.config/fish/completions/gh-sweep.fish
";

pub(super) const MAN_EXAMPLES: &str = "  $ gh-sweep man > ~/.local/share/man/man1/gh-sweep.1
  $ gh-sweep man stale-sweep
  $ gh-sweep man --out-dir ~/.local/share/man/man1
";

/// A subcommand's help epilogue: its examples (gh's habit: real command lines, each one
/// accepted as written; a test parses them), then the exit codes.
pub(super) fn examples(list: &str) -> String {
    format!("Examples:\n{list}\n{AFTER_HELP}")
}

/// The examples alone, for subcommands whose exit is always 0 or 2.
pub(super) fn examples_only(list: &str) -> String {
    format!("Examples:\n{list}")
}

pub(super) const STORE_EXAMPLES: &str =
    "  # What the shared store holds, and which hosts are at work
  $ gh-sweep store status --db \"$GH_SWEEP_DB\"

  # Move this host's SQLite state into PostgreSQL, where a second host can share it
  $ PGPASSWORD=... gh-sweep store copy --from ~/.local/state/gh-sweep/state.db \\
      --to 'postgres://sweep@db.internal/gh_sweep?sslmode=verify-full'
";

pub(super) const STORE_STATUS_EXAMPLES: &str = "  $ gh-sweep store status
  $ gh-sweep store status --json \\
      --db 'postgres://sweep@db.internal/gh_sweep?sslmode=verify-full'
";

pub(super) const STORE_COPY_EXAMPLES: &str =
    "  # SQLite into PostgreSQL (the password from PGPASSWORD or ~/.pgpass)
  $ gh-sweep store copy --from ~/.local/state/gh-sweep/state.db \\
      --to 'postgres://sweep@db.internal/gh_sweep?sslmode=verify-full'

  # And back, over a file that already holds runs
  $ gh-sweep store copy --from 'postgres://sweep@db.internal/gh_sweep' \\
      --to state.db --force
";
