//! `delete_branch`: after closing a stale PR, its head branch is deleted when it lives in the
//! same repository (as actions/stale: a fork's branch is not the repository's to delete), and
//! never when it is the default branch or a protected one.

use super::HeadBranch;
use crate::policy::write::Write;

/// Why a closed PR's head branch is not deleted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BranchKept {
    #[error("its head branch is already gone")]
    Gone,
    #[error("its head branch {name} lives in another repository")]
    InAnotherRepository { name: String },
    #[error("its head branch {name} is the default branch")]
    Default { name: String },
    #[error("its head branch {name} is protected")]
    Protected { name: String },
}

/// The deletion of the closed PR's head branch, or why there is none (`None`: the branch is
/// already gone).
pub(crate) fn branch_deletion(branch: Option<&HeadBranch>) -> Result<Write, BranchKept> {
    let Some(branch) = branch else {
        return Err(BranchKept::Gone);
    };
    let name = branch.name.clone();
    if !branch.same_repository {
        return Err(BranchKept::InAnotherRepository { name });
    }
    if branch.default {
        return Err(BranchKept::Default { name });
    }
    if branch.protected {
        return Err(BranchKept::Protected { name });
    }
    Ok(Write::DeleteBranch { branch: name })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn branch() -> HeadBranch {
        HeadBranch {
            name: "fix-docs".into(),
            same_repository: true,
            default: false,
            protected: false,
        }
    }

    #[test]
    fn only_a_plain_branch_of_the_same_repository_is_deleted() {
        assert_eq!(
            branch_deletion(Some(&branch())),
            Ok(Write::DeleteBranch {
                branch: "fix-docs".into()
            })
        );
        let fork = HeadBranch {
            same_repository: false,
            ..branch()
        };
        assert!(branch_deletion(Some(&fork))
            .unwrap_err()
            .to_string()
            .contains("another repository"));
        let default = HeadBranch {
            default: true,
            ..branch()
        };
        assert!(branch_deletion(Some(&default))
            .unwrap_err()
            .to_string()
            .contains("default branch"));
        let protected = HeadBranch {
            protected: true,
            ..branch()
        };
        assert!(branch_deletion(Some(&protected))
            .unwrap_err()
            .to_string()
            .contains("protected"));
        assert!(branch_deletion(None)
            .unwrap_err()
            .to_string()
            .contains("already gone"));
        assert_eq!(
            branch_deletion(Some(&fork)),
            Err(BranchKept::InAnotherRepository {
                name: branch().name
            })
        );
    }
}
