//! The merge method: `[sweep] merge_method`, whether the repository's settings and its
//! branch's rules allow it (and what those rules say for a blocked PR), and what GitHub's
//! refusal of a merge (a 405) means.

/// How `sweep` merges: `[sweep] merge_method`, sent as GitHub's `merge_method`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    pub fn from_config(word: &str) -> Result<MergeMethod, String> {
        MergeMethod::ALL
            .into_iter()
            .find(|method| method.word() == word)
            .ok_or_else(|| {
                format!(
                    "invalid [sweep] merge_method = \"{word}\": use \"merge\", \"squash\" or \"rebase\""
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
pub const CLASSIC_NOTE: &str =
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

/// Whether `method` may be used: the repository's settings intersected with the rules'.
pub fn method_allowed(
    method: MergeMethod,
    repo: &str,
    settings: &MergeSettings,
    rules: &BranchRules,
) -> Result<(), String> {
    let allowed: Vec<&str> = [
        (MergeMethod::Merge, settings.merge),
        (MergeMethod::Squash, settings.squash),
        (MergeMethod::Rebase, settings.rebase),
    ]
    .into_iter()
    .filter(|(_, allowed)| *allowed != Some(false))
    .map(|(method, _)| method.word())
    .filter(|name| {
        rules.allowed_methods.as_ref().is_none_or(|methods| {
            methods
                .iter()
                .any(|method| method.eq_ignore_ascii_case(name))
        })
    })
    .collect();
    if allowed.contains(&method.word()) {
        return Ok(());
    }
    let list = if allowed.is_empty() {
        "no merge method".to_string()
    } else {
        allowed.join(", ")
    };
    Err(format!(
        "merge_method \"{method}\" is not allowed on {repo} (it allows {list}): set [sweep] merge_method"
    ))
}

/// What a 405 from `PUT /merge` means, from GitHub's message: a reason in words, and whether
/// trying again can help.
pub fn refusal(message: &str) -> (String, bool) {
    let lower = message.to_ascii_lowercase();
    if lower.contains("merge queue") {
        return (
            "the base branch requires the merge queue: gh-sweep does not retry it (its budget is spent); merge it through the queue on GitHub".into(),
            false,
        );
    }
    if lower.contains("merges are not allowed") || lower.contains("merge commits are not allowed") {
        return (
            "the repository does not allow this merge method: set [sweep] merge_method (not retried)".into(),
            false,
        );
    }
    if lower.contains("approving review") {
        return (
            "GitHub requires more approving reviews from accounts with write access; tried again after the backoff".into(),
            true,
        );
    }
    if lower.contains("base branch was modified") {
        return (
            "the base branch was modified while merging; tried again after the backoff".into(),
            true,
        );
    }
    (
        "GitHub would not merge it; tried again after the backoff".into(),
        true,
    )
}
