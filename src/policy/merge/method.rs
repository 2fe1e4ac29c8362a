//! The merge method: `[sweep] merge_method`, whether the repository's settings and its
//! branch's rules allow it (and what those rules say for a blocked PR), and what GitHub's
//! refusal of a merge (a 405) means.

/// How `sweep` merges: `[sweep] merge_method`, sent as GitHub's `merge_method`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MergeMethod {
    Merge,
    Squash,
    Rebase,
}

impl MergeMethod {
    pub const ALL: [MergeMethod; 3] =
        [MergeMethod::Merge, MergeMethod::Squash, MergeMethod::Rebase];

    /// The word the config and GitHub use for it; the one place it is spelled.
    pub fn word(self) -> &'static str {
        match self {
            MergeMethod::Merge => "merge",
            MergeMethod::Squash => "squash",
            MergeMethod::Rebase => "rebase",
        }
    }

    /// `[sweep] merge_method`'s word as a method; the error names the bad value.
    pub fn from_config(word: &str) -> Result<MergeMethod, crate::policy::RuleError> {
        MergeMethod::ALL
            .into_iter()
            .find(|method| method.word() == word)
            .ok_or_else(|| {
                crate::policy::RuleError::value(
                    "sweep",
                    "merge_method",
                    format!("\"{word}\""),
                    "use \"merge\", \"squash\" or \"rebase\"",
                )
            })
    }
}

impl std::fmt::Display for MergeMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

/// What the rules of a branch say: its rulesets, as `GET /repos/{o}/{r}/rules/branches/{branch}`
/// gives them, and the status checks its classic protection requires, as "Get a branch"
/// summarises them to any token with read access. The rest of a classic rule ("Get branch
/// protection") needs admin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BranchRules {
    pub branch: String,
    /// Why they could not be read, when they could not.
    pub unreadable: Option<String>,
    pub required_checks: Vec<String>,
    /// Why the checks the branch requires are not known (its summary could not be read): the
    /// green rule then fails closed.
    pub required_unknown: Option<String>,
    /// The branch has classic protection (its summary says `protected`).
    pub classic: bool,
    pub merge_queue: bool,
    /// A ruleset requires linear history: no merge commit may land.
    pub linear_history: bool,
    /// The merge methods the rules allow; `None`: they do not restrict them.
    pub allowed_methods: Option<Vec<String>>,
    /// Each rule, in words.
    pub described: Vec<String>,
}

/// What "Get a branch" (`GET /repos/{o}/{r}/branches/{branch}`) says of a branch's classic
/// protection: whether it is protected, and the status checks it requires
/// (`protection.required_status_checks`, enforced unless its `enforcement_level` is `off`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassicProtection {
    pub protected: bool,
    pub required_checks: Vec<String>,
}

/// What a non-admin can and cannot know of classic branch protection, said in every recap that
/// explains a blocked PR.
pub(crate) const CLASSIC_NOTE: &str =
    "classic protection details need admin; its required checks are read from the branch summary";

impl BranchRules {
    /// Adds what the branch summary says of classic protection: its required checks join the
    /// rulesets'.
    pub fn with_classic(mut self, classic: &ClassicProtection) -> Self {
        self.classic = classic.protected;
        if !classic.required_checks.is_empty() {
            let named: Vec<String> = classic
                .required_checks
                .iter()
                .map(|context| format!("`{context}`"))
                .collect();
            self.described.push(format!(
                "classic protection: required checks {}",
                named.join(", ")
            ));
        }
        for context in &classic.required_checks {
            if !self.required_checks.contains(context) {
                self.required_checks.push(context.clone());
            }
        }
        self
    }

    /// For a `blocked` PR: the rules gh-sweep could read, or why none.
    pub fn explain(&self) -> String {
        if let Some(why) = &self.unreadable {
            return format!("the rules of {} could not be read: {why}", self.branch);
        }
        if self.described.is_empty() {
            return format!(
                "gh-sweep can read no ruleset on {} ({CLASSIC_NOTE})",
                self.branch
            );
        }
        let mut said = format!(
            "the rules on {} gh-sweep can read: {}",
            self.branch,
            self.described.join(", ")
        );
        if self.classic {
            said.push_str(&format!(" ({CLASSIC_NOTE})"));
        }
        said
    }
}

/// A repository's merge settings (`allow_*` of `GET /repos/{o}/{r}`); `None` where GitHub does
/// not say (it leaves them out for tokens that may not see the settings).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeSettings {
    pub merge: Option<bool>,
    pub squash: Option<bool>,
    pub rebase: Option<bool>,
}

/// The methods the repository's settings and the branch's rules both allow (a setting GitHub
/// leaves out is not taken as a refusal).
fn allowed_methods(settings: &MergeSettings, rules: &BranchRules) -> Vec<MergeMethod> {
    [
        (MergeMethod::Merge, settings.merge),
        (MergeMethod::Squash, settings.squash),
        (MergeMethod::Rebase, settings.rebase),
    ]
    .into_iter()
    .filter(|(_, allowed)| *allowed != Some(false))
    .map(|(method, _)| method)
    .filter(|method| {
        rules.allowed_methods.as_ref().is_none_or(|methods| {
            methods
                .iter()
                .any(|allowed| allowed.eq_ignore_ascii_case(method.word()))
        })
    })
    .collect()
}

fn listed(methods: &[MergeMethod]) -> String {
    if methods.is_empty() {
        return "no merge method".to_string();
    }
    let words: Vec<&str> = methods.iter().map(|method| method.word()).collect();
    words.join(", ")
}

/// A `[sweep] merge_method` the repository does not allow: the method, the repository, and
/// the methods it allows, listed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("merge_method \"{method}\" is not allowed on {repo} (it allows {allowed}): set [sweep] merge_method")]
pub(crate) struct MethodNotAllowed {
    pub method: MergeMethod,
    pub repo: String,
    pub allowed: String,
}

/// Whether `method` may be used: the repository's settings intersected with the rules'.
pub(crate) fn method_allowed(
    method: MergeMethod,
    repo: &str,
    settings: &MergeSettings,
    rules: &BranchRules,
) -> Result<(), MethodNotAllowed> {
    let allowed = allowed_methods(settings, rules);
    if allowed.contains(&method) {
        return Ok(());
    }
    Err(MethodNotAllowed {
        method,
        repo: repo.to_string(),
        allowed: listed(&allowed),
    })
}

/// The method a merge is sent with, and, when it is not `[sweep] merge_method`, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MethodChoice {
    pub method: MergeMethod,
    pub why: Option<String>,
}

/// Why no merge is sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NoMethod {
    /// `[sweep] merge_method` is not allowed: the maintainer's to change.
    NotAllowed(String),
    /// Linear history rules out a merge commit and the repository allows no other method:
    /// nothing gh-sweep may send can merge it.
    NoneLeft(String),
}

/// The method for a PR's merge: `configured`, unless linear history rules out a merge commit
/// (a ruleset's `required_linear_history`, or GitHub's refusal of one on this PR's branch,
/// `merge_commit_refused`): then squash, else rebase, as the repository and rules allow.
pub(crate) fn choose_method(
    configured: MergeMethod,
    repo: &str,
    settings: &MergeSettings,
    rules: &BranchRules,
    merge_commit_refused: bool,
) -> Result<MethodChoice, NoMethod> {
    let linear = if rules.linear_history {
        Some(format!(
            "{} requires linear history (a ruleset)",
            rules.branch
        ))
    } else if merge_commit_refused {
        Some(format!(
            "GitHub refused a merge commit on {} (\"This branch must not contain merge commits.\": classic protection's linear history)",
            rules.branch
        ))
    } else {
        None
    };
    let as_configured = |configured| {
        method_allowed(configured, repo, settings, rules)
            .map(|()| MethodChoice {
                method: configured,
                why: None,
            })
            .map_err(|why| NoMethod::NotAllowed(why.to_string()))
    };
    let Some(linear) = linear.filter(|_| configured == MergeMethod::Merge) else {
        return as_configured(configured);
    };
    let allowed = allowed_methods(settings, rules);
    match [MergeMethod::Squash, MergeMethod::Rebase]
        .into_iter()
        .find(|method| allowed.contains(method))
    {
        Some(method) => Ok(MethodChoice {
            method,
            why: Some(format!(
                "{method}, not merge: {linear}, which rules out a merge commit"
            )),
        }),
        None => {
            let allows = if allowed == [MergeMethod::Merge] {
                "merge commits only".to_string()
            } else {
                listed(&allowed)
            };
            Err(NoMethod::NoneLeft(format!(
                "{linear}, which rules out a merge commit, and {repo} allows {allows}: nothing gh-sweep may send can merge it (allow squash or rebase merges on GitHub)"
            )))
        }
    }
}

/// What a 405 from `PUT /merge` means, from GitHub's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MergeRefusal {
    /// The base branch requires the merge queue: trying again cannot help.
    MergeQueue,
    /// The repository does not allow this merge method: trying again cannot help.
    MethodNotAllowed,
    /// "This branch must not contain merge commits." (classic linear history): another
    /// method may merge it.
    MergeCommit,
    /// Something trying again after the backoff may change, in words.
    Retry(&'static str),
}

impl MergeRefusal {
    /// Whether trying again (with the same method) can help.
    pub(crate) fn retryable(&self) -> bool {
        matches!(self, MergeRefusal::Retry(_))
    }

    /// The reason in words; for a refused merge commit, what the next attempt does.
    pub(crate) fn reason(&self, next: Option<MergeMethod>) -> String {
        match self {
            MergeRefusal::MergeQueue => "the base branch requires the merge queue: gh-sweep does not retry it (its budget is spent); merge it through the queue on GitHub".into(),
            MergeRefusal::MethodNotAllowed => "the repository does not allow this merge method: set [sweep] merge_method (not retried)".into(),
            MergeRefusal::MergeCommit => match next {
                Some(method) => format!(
                    "the base branch must not contain merge commits (classic protection's linear history, which only admins can read): nothing was written, and the next attempt uses {method}"
                ),
                None => "the base branch must not contain merge commits (classic protection's linear history), and the repository allows no other merge method: not retried (its budget is spent)".into(),
            },
            MergeRefusal::Retry(why) => (*why).into(),
        }
    }
}

/// What a 405 from `PUT /merge` means, from GitHub's message.
pub(crate) fn refusal(message: &str) -> MergeRefusal {
    let lower = message.to_ascii_lowercase();
    if lower.contains("merge queue") {
        return MergeRefusal::MergeQueue;
    }
    if lower.contains("merges are not allowed") || lower.contains("merge commits are not allowed") {
        return MergeRefusal::MethodNotAllowed;
    }
    if lower.contains("must not contain merge commits") {
        return MergeRefusal::MergeCommit;
    }
    if lower.contains("approving review") {
        return MergeRefusal::Retry(
            "GitHub requires more approving reviews from accounts with write access; tried again after the backoff",
        );
    }
    if lower.contains("base branch was modified") {
        return MergeRefusal::Retry(
            "the base branch was modified while merging; tried again after the backoff",
        );
    }
    MergeRefusal::Retry("GitHub would not merge it; tried again after the backoff")
}
