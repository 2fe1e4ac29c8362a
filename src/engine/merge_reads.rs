//! What `poll`, `classify merge` and `sweep` read to judge a merge, beyond the PR itself, with
//! a memory per run: a reviewer's permission is read once per run, a
//! repository's merge settings once, a branch's rules once. A 403 where GitHub documents one
//! for a token without the access (a collaborator's permission, Actions' workflow runs, a
//! branch's rules) is the PR's reason not to merge, never a stop of the run.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::ReadError;
use crate::github::{ApiError, Reader};
use crate::item::{ItemRef, RepoRef};
use crate::policy::merge::{self, Access, BranchRules, Checks, MergeSettings, PollRules, Review};

/// The run's memory of what does not change within a run.
#[derive(Default)]
pub(crate) struct MergeReads {
    access: BTreeMap<(RepoRef, String), Access>,
    settings: BTreeMap<RepoRef, MergeSettings>,
    rules: BTreeMap<(RepoRef, String), BranchRules>,
}

/// A 403 that means "this token may not read that": the reason in words, or the error back.
fn refused(error: ApiError, what: &str) -> Result<String, ApiError> {
    match error {
        ApiError::Auth {
            status: 403,
            message,
        } => Ok(format!("reading {what} was refused (403): {message}")),
        other => Err(other),
    }
}

/// The green rule's verdict and, when green, when it went green.
pub(crate) struct Green {
    pub verdict: Result<Vec<String>, merge::NotGreen>,
    pub since: Option<DateTime<Utc>>,
}

/// The approval rule's verdict and, when approved, the time of the newest counted approval.
pub(crate) struct Approval {
    pub verdict: merge::ApprovalVerdict,
    pub since: Option<DateTime<Utc>>,
}

impl MergeReads {
    /// A reviewer's access, read once per run.
    pub(crate) fn access(
        &mut self,
        github: &dyn Reader,
        repo: &RepoRef,
        login: &str,
    ) -> Result<Access, ReadError> {
        let key = (repo.clone(), login.to_ascii_lowercase());
        if let Some(known) = self.access.get(&key) {
            return Ok(known.clone());
        }
        let access = match github.access(repo, login) {
            Ok(access) => access,
            Err(ApiError::Item {
                status: Some(404), ..
            }) => Access::Unknown(format!("GitHub knows no account {login} on {repo} (404)")),
            Err(error) => Access::Unknown(refused(error, &format!("{login}'s permission"))?),
        };
        self.access.insert(key, access.clone());
        Ok(access)
    }

    /// The PR's reviews, judged with each reviewer's access.
    pub(crate) fn approval(
        &mut self,
        github: &dyn Reader,
        item: &ItemRef,
        head: &str,
    ) -> Result<Approval, ReadError> {
        let reviews: Vec<Review> = github.reviews(item)?;
        let mut access: BTreeMap<String, Access> = BTreeMap::new();
        for login in merge::reviewers(&reviews) {
            let found = self.access(github, &item.repo, &login)?;
            access.insert(login.to_ascii_lowercase(), found);
        }
        let lookup = |login: &str| {
            access
                .get(&login.to_ascii_lowercase())
                .cloned()
                .unwrap_or_else(|| Access::Unknown("not read".into()))
        };
        let verdict = merge::approved_at_head(&reviews, head, &lookup);
        let since = (verdict == merge::ApprovalVerdict::Approved)
            .then(|| merge::approved_since(&reviews, head, &lookup))
            .flatten();
        Ok(Approval { verdict, since })
    }

    /// The rules of a branch, read once per run: its rulesets and its classic protection's
    /// required checks (the branch summary). Unreadable rules are said, not guessed.
    pub(crate) fn rules(
        &mut self,
        github: &dyn Reader,
        repo: &RepoRef,
        branch: &str,
    ) -> Result<BranchRules, ReadError> {
        let key = (repo.clone(), branch.to_string());
        if let Some(known) = self.rules.get(&key) {
            return Ok(known.clone());
        }
        let rules = match github.branch_rules(repo, branch) {
            Ok(rules) => rules,
            Err(ApiError::Item {
                status: Some(404), ..
            }) => BranchRules {
                branch: branch.to_string(),
                unreadable: Some("GitHub answered 404 (no rulesets on this server?)".into()),
                ..BranchRules::default()
            },
            Err(error) => BranchRules {
                branch: branch.to_string(),
                unreadable: Some(refused(error, &format!("the rules of {branch}"))?),
                ..BranchRules::default()
            },
        };
        // Classic protection's required checks, from the branch summary any reader may see.
        let rules = match github.classic_protection(repo, branch) {
            Ok(classic) => rules.with_classic(&classic),
            Err(ApiError::Item {
                status: Some(404), ..
            }) => BranchRules {
                required_unknown: Some(format!("GitHub answered 404 for the branch {branch}")),
                ..rules
            },
            Err(error) => BranchRules {
                required_unknown: Some(refused(error, &format!("the branch {branch}"))?),
                ..rules
            },
        };
        self.rules.insert(key, rules.clone());
        Ok(rules)
    }

    /// A repository's merge settings, read once per run.
    pub(crate) fn settings(
        &mut self,
        github: &dyn Reader,
        repo: &RepoRef,
    ) -> Result<MergeSettings, ReadError> {
        if let Some(known) = self.settings.get(repo) {
            return Ok(known.clone());
        }
        let settings = github.merge_settings(repo)?;
        self.settings.insert(repo.clone(), settings.clone());
        Ok(settings)
    }

    /// The head's check runs, check suites, commit statuses and (when a suite needs them)
    /// workflow runs, judged with the checks the base branch's rules require.
    pub(crate) fn green(
        &mut self,
        github: &dyn Reader,
        repo: &RepoRef,
        head: &str,
        base: Option<&str>,
        rules: &PollRules,
        now: DateTime<Utc>,
    ) -> Result<Green, ReadError> {
        let runs = github.check_runs(repo, head)?;
        let suites = github.check_suites(repo, head)?;
        let statuses = github.statuses(repo, head)?;
        let workflows = if merge::needs_workflow_runs(&suites, now, rules.orphan_age()) {
            Some(match github.workflow_runs(repo, head) {
                Ok(runs) => Ok(runs),
                Err(error) => Err(merge::WorkflowRunsUnread(refused(
                    error,
                    "the head's workflow runs (Actions read access)",
                )?)),
            })
        } else {
            None
        };
        let (required, required_unknown, branch) = match base {
            Some(base) => {
                let rules = self.rules(github, repo, base)?;
                (
                    rules.required_checks,
                    rules.required_unknown,
                    base.to_string(),
                )
            }
            None => (Vec::new(), None, String::new()),
        };
        let checks = Checks {
            runs,
            suites,
            workflows,
            statuses,
            required,
            required_unknown,
            branch,
        };
        let verdict = merge::green(
            &checks,
            head,
            rules.skipped_counts_as,
            now,
            rules.orphan_age(),
        );
        let since = verdict
            .is_ok()
            .then(|| merge::green_since(&checks.runs))
            .flatten();
        Ok(Green { verdict, since })
    }
}
