//! The account a run's writes count against, and its earlier writes: GitHub's content ceilings
//! (80 a minute, 500 an hour) are per account, so every run acting as one account on one host
//! shares them through the store's journal. The account is learnt once per run (`GET /user`,
//! which the client remembers for the run), and only when the run will write to GitHub. What
//! the limits allow is decided by `policy::pacing`; this file only gathers its inputs.

use chrono::{DateTime, Utc};

use super::read::PendingPlan;
use super::state::State;
use super::Run;
use crate::github::ApiError;
use crate::policy::pacing;
use crate::policy::recap::Stop;

impl Run<'_> {
    /// Learns and records the account the run's writes count against, when some planned write
    /// goes to GitHub. A refusal stops the run before any write: its ceilings cannot be known.
    pub(super) fn learn_account(
        &mut self,
        run_id: i64,
        state: &mut State,
        pending: &[PendingPlan],
    ) -> anyhow::Result<()> {
        let remote: usize = pending
            .iter()
            .map(|pending| pending.plan.remote.len())
            .sum();
        if remote == 0 {
            return Ok(());
        }
        match self.account_name() {
            Ok(account) => {
                self.store.record_account(run_id, &account)?;
                state.account = Some(account);
            }
            Err(ApiError::Auth { message, .. }) => state.stop(Stop::Auth, message),
            Err(error) => state.stop(
                Stop::HarnessOutage,
                format!("reading the token's account for the write ceilings: {error}"),
            ),
        }
        Ok(())
    }

    /// `host/login` for a user's token. An app installation token (`GITHUB_TOKEN` included)
    /// has no user: GitHub refuses `GET /user` to it ("Get the authenticated user"), its
    /// writes are the app's bot's (`github-actions[bot]` for `GITHUB_TOKEN`, "Automatic token
    /// authentication"). An app is installed once per organisation or user ("About
    /// installing GitHub Apps"), so the installation on the owners of this run's repositories
    /// is the account: runs over different repositories of one owner share its ceilings.
    fn account_name(&self) -> Result<String, ApiError> {
        let host = self
            .options
            .web_url
            .split("://")
            .last()
            .unwrap_or_default()
            .trim_end_matches('/');
        Ok(match self.reader.viewer()? {
            Some(login) => format!("{host}/{login}"),
            None => {
                let mut scope: Vec<String> = self
                    .options
                    .repos
                    .iter()
                    .map(|repo| repo.owner.to_ascii_lowercase())
                    .chain(self.options.orgs.iter().map(|org| org.to_ascii_lowercase()))
                    .collect();
                scope.sort_unstable();
                scope.dedup();
                format!("{host}: an app installation on {}", scope.join(", "))
            }
        })
    }

    /// The account's writes of the last hour, this run's and other runs' alike, ascending.
    pub(super) fn recent_writes(&self, account: &str) -> anyhow::Result<Vec<DateTime<Utc>>> {
        let now = self.clock.wall();
        let since = now - chrono::Duration::from_std(pacing::WINDOW).unwrap_or_default();
        let writes = self.store.account_writes_since(account, since)?;
        Ok(pacing::sent_by(&writes, now))
    }

    /// The plan's line when its writes need longer than the hour allows, before the prompt;
    /// with `--yes`, what the run does about it.
    pub(super) fn estimate_lines(
        &self,
        state: &State,
        pending: &[PendingPlan],
        asks: bool,
    ) -> anyhow::Result<Vec<String>> {
        let Some(account) = &state.account else {
            return Ok(Vec::new());
        };
        let writes: usize = pending
            .iter()
            .map(|pending| pending.plan.remote.len())
            .sum();
        let recent = self.recent_writes(account)?;
        let interval = self.options.write_interval;
        let Some(estimate) = pacing::hourly_estimate(&recent, self.clock.wall(), writes, interval)
        else {
            return Ok(Vec::new());
        };
        let mut lines = vec![format!(
            "{} (for {account}, with {} of its writes in the last hour).",
            pacing::estimate_text(writes, estimate),
            recent.len()
        )];
        if !asks && estimate > self.options.max_wait {
            lines.push(format!(
                "Without a prompt, a wait longer than max_wait ({}) stops the run there; the rest stays unfinished for the next run.",
                pacing::duration_text(self.options.max_wait)
            ));
        }
        Ok(lines)
    }

    /// The least time the plan's writes to GitHub take at its ceilings (the interval, 80 a
    /// minute, and the hour's 500 counted with this account's writes already sent).
    pub(super) fn plan_duration(
        &self,
        state: &State,
        pending: &[PendingPlan],
    ) -> anyhow::Result<std::time::Duration> {
        let writes: usize = pending
            .iter()
            .map(|pending| pending.plan.remote.len())
            .sum();
        let hourly = match &state.account {
            Some(account) => {
                let recent = self.recent_writes(account)?;
                pacing::hourly_estimate(
                    &recent,
                    self.clock.wall(),
                    writes,
                    self.options.write_interval,
                )
            }
            None => None,
        };
        Ok(pacing::least_duration(
            writes,
            self.options.write_interval,
            hourly,
        ))
    }

    /// The limits the write phase holds the run to: `max_wait` only when nobody was asked.
    pub(super) fn limits(&self, asked: bool) -> pacing::Limits {
        pacing::Limits {
            max_writes: self.options.max_writes,
            core: None,
            interval: self.options.write_interval,
            max_wait: (!asked).then_some(self.options.max_wait),
        }
    }
}
