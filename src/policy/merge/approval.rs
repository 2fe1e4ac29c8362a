//! The approved-at-head rule: each reviewer's newest verdict, counted only when the reviewer
//! has write access; a permission that cannot be read is a reason not to merge, never a guess.

use chrono::{DateTime, Utc};

use super::short;

/// The time of the newest counted approval of the head (seed 001's `review-approved`).
pub(crate) fn approved_since(
    reviews: &[Review],
    head_sha: &str,
    access: &dyn Fn(&str) -> Access,
) -> Option<DateTime<Utc>> {
    verdicts(reviews)
        .into_iter()
        .filter(|review| {
            review.state == "APPROVED"
                && !review.bot
                && review.commit_id.as_deref() == Some(head_sha)
                && access(&review.login) == Access::Write
        })
        .filter_map(|review| review.submitted_at)
        .max()
}

/// A review, as the reviews list gives it.
pub struct Review {
    /// The reviewer's login as the API that read it spells it: a bot's is `name[bot]` on REST
    /// and the bare `name` on GraphQL, so reviewers are told apart by `user_id` where known.
    pub login: String,
    /// The account's id: REST's `user.id`, GraphQL's `databaseId`.
    pub user_id: Option<u64>,
    /// A GitHub App's bot (REST `type: "Bot"`, GraphQL `__typename: "Bot"`): no collaborator,
    /// so its permission is never asked.
    pub bot: bool,
    pub state: String,
    pub commit_id: Option<String>,
    pub submitted_at: Option<DateTime<Utc>>,
    /// GitHub's `author_association`: shown, never trusted (MEMBER and COLLABORATOR include
    /// read-only accounts; a `GITHUB_TOKEN` sees private org members as CONTRIBUTOR).
    pub association: Option<String>,
}

/// A reviewer's access to the repository, from the collaborator permission endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// Write, maintain or admin: the review counts.
    Write,
    /// Less than write (the role GitHub names): a stranger's review neither approves nor blocks.
    Without(String),
    /// The permission could not be read (why): the review cannot be counted either way.
    Unknown(String),
}

impl Review {
    /// The reviewer as a recap names them: a bot by its name and `(bot)`, the same whichever
    /// API read it.
    pub fn reviewer(&self) -> String {
        if self.bot {
            format!(
                "{} (bot)",
                self.login.strip_suffix("[bot]").unwrap_or(&self.login)
            )
        } else {
            self.login.clone()
        }
    }

    /// Whether two reviews are by one account: by id where both have one, else by login.
    fn same_reviewer(&self, other: &Review) -> bool {
        match (self.user_id, other.user_id) {
            (Some(one), Some(two)) => one == two,
            _ => self.bot == other.bot && self.login.eq_ignore_ascii_case(&other.login),
        }
    }
}

impl Access {
    /// From `GET /repos/{o}/{r}/collaborators/{user}/permission`: `permission` is the base role
    /// (maintain reads as write), `role_name` the role itself.
    pub fn from_permission(permission: Option<&str>, role: Option<&str>) -> Access {
        let writes = |name: &str| matches!(name, "admin" | "maintain" | "write");
        if permission.is_some_and(writes) || role.is_some_and(writes) {
            return Access::Write;
        }
        Access::Without(
            role.or(permission)
                .filter(|name| !name.is_empty())
                .unwrap_or("none")
                .to_string(),
        )
    }
}

/// The newest verdict of each reviewer: comments do not change it, a dismissal withdraws it.
pub(crate) fn verdicts(reviews: &[Review]) -> Vec<&Review> {
    let mut newest: Vec<&Review> = Vec::new();
    for review in reviews.iter().filter(|review| {
        matches!(
            review.state.as_str(),
            "APPROVED" | "CHANGES_REQUESTED" | "DISMISSED"
        )
    }) {
        match newest.iter_mut().find(|kept| kept.same_reviewer(review)) {
            Some(kept) => {
                if review.submitted_at >= kept.submitted_at {
                    *kept = review;
                }
            }
            None => newest.push(review),
        }
    }
    newest.retain(|review| review.state != "DISMISSED");
    newest
}

/// The reviewers whose access decides: the people with a standing verdict. A bot is no
/// collaborator: the permission endpoint answers `none` for an App's bot and 404 for Copilot,
/// so a bot's access is never asked.
pub(crate) fn reviewers(reviews: &[Review]) -> Vec<String> {
    verdicts(reviews)
        .into_iter()
        .filter(|review| !review.bot)
        .map(|review| review.login.clone())
        .collect()
}

/// The approval rule's verdict. What the guard does with it follows its kind (changes
/// requested end a sweep, seed 001), never its words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ApprovalVerdict {
    Approved,
    /// Not approved at the head (yet), with the reason in words.
    NotApproved(String),
    /// A reviewer with write access requested changes.
    ChangesRequested {
        reviewer: String,
    },
}

impl ApprovalVerdict {
    /// Why the PR is not approved, in words; `None` when it is.
    pub(crate) fn reason(&self) -> Option<String> {
        match self {
            ApprovalVerdict::Approved => None,
            ApprovalVerdict::NotApproved(why) => Some(why.clone()),
            ApprovalVerdict::ChangesRequested { reviewer } => {
                Some(format!("{reviewer} requested changes"))
            }
        }
    }

    /// The verdict as the other rules give theirs: passed, or the reason in words.
    pub(crate) fn into_result(self) -> Result<(), NotApproved> {
        self.reason().map_or(Ok(()), |why| Err(NotApproved(why)))
    }
}

/// Why the PR is not approved at its head, in words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct NotApproved(pub String);

/// At least one approval of the head and no changes requested, counting only reviewers with
/// write access. A reviewer whose access could not be read cannot be counted either way: that
/// is a reason not to merge yet, never a guess.
pub(crate) fn approved_at_head(
    reviews: &[Review],
    head_sha: &str,
    access: &dyn Fn(&str) -> Access,
) -> ApprovalVerdict {
    let mut counted: Vec<&Review> = Vec::new();
    let mut strangers: Vec<(&Review, String)> = Vec::new();
    let mut unknown: Vec<(&Review, String)> = Vec::new();
    let mut bots: Vec<&Review> = Vec::new();
    for review in verdicts(reviews) {
        if review.bot {
            bots.push(review);
            continue;
        }
        match access(&review.login) {
            Access::Write => counted.push(review),
            Access::Without(role) => strangers.push((review, role)),
            Access::Unknown(why) => unknown.push((review, why)),
        }
    }
    if let Some(blocking) = counted
        .iter()
        .find(|review| review.state == "CHANGES_REQUESTED")
    {
        return ApprovalVerdict::ChangesRequested {
            reviewer: blocking.reviewer(),
        };
    }
    // A bot that asked for changes at the head (a linter, a security scanner) is a reason not
    // to merge, whatever its permission: fail closed. On an older head it no longer speaks.
    if let Some(blocking) = bots.iter().find(|review| {
        review.state == "CHANGES_REQUESTED" && review.commit_id.as_deref() == Some(head_sha)
    }) {
        return ApprovalVerdict::ChangesRequested {
            reviewer: blocking.reviewer(),
        };
    }
    if let Some((review, why)) = unknown.first() {
        let verdict = if review.state == "APPROVED" {
            "approval"
        } else {
            "request for changes"
        };
        return ApprovalVerdict::NotApproved(format!(
            "{}'s {verdict} cannot be counted: {why}",
            review.login
        ));
    }
    let approvals: Vec<&&Review> = counted
        .iter()
        .filter(|review| review.state == "APPROVED")
        .collect();
    if approvals
        .iter()
        .any(|review| review.commit_id.as_deref() == Some(head_sha))
    {
        return ApprovalVerdict::Approved;
    }
    if !approvals.is_empty() {
        return ApprovalVerdict::NotApproved(format!(
            "approval is on an older commit, not {}",
            short(head_sha)
        ));
    }
    not_counted(&strangers, &bots)
}

/// No approval counts: which approvals were left out, and why (no write access, a bot).
fn not_counted(strangers: &[(&Review, String)], bots: &[&Review]) -> ApprovalVerdict {
    // A bot's approval never counts as a writer's.
    let uncounted: Vec<String> = strangers
        .iter()
        .filter(|(review, _)| review.state == "APPROVED")
        .map(|(review, role)| format!("{} ({role})", review.login))
        .chain(
            bots.iter()
                .filter(|review| review.state == "APPROVED")
                .map(|review| review.reviewer()),
        )
        .collect();
    if uncounted.is_empty() {
        ApprovalVerdict::NotApproved("no approval".into())
    } else {
        ApprovalVerdict::NotApproved(format!(
            "no approval from an account with write access (not counted: {})",
            uncounted.join(", ")
        ))
    }
}
