//! Unit tests of the approved-at-head rule: verdicts, access, the time of the approval.

use super::*;

fn writers(login: &str) -> Access {
    match login {
        "mallory" => Access::Without("read".into()),
        "unknown" => Access::Unknown("reading unknown's permission was refused (403)".into()),
        _ => Access::Write,
    }
}

fn review(login: &str, state: &str, commit: &str, minute: i64) -> Review {
    Review {
        login: login.into(),
        user_id: None,
        bot: login.ends_with("[bot]"),
        state: state.into(),
        commit_id: Some(commit.into()),
        submitted_at: Some(now() + Duration::minutes(minute)),
        association: Some("MEMBER".into()),
    }
}

#[test]
fn approval_must_be_on_the_head_and_unopposed() {
    let approved = |reviews: &[Review]| approved_at_head(reviews, "head", &writers);
    let not = |why: &str| ApprovalVerdict::NotApproved(why.into());
    assert_eq!(
        approved(&[review("ann", "APPROVED", "head", 0)]),
        ApprovalVerdict::Approved
    );
    assert_eq!(
        approved(&[review("ann", "APPROVED", "old", 0)]),
        not("approval is on an older commit, not head")
    );
    let reviews = [
        review("ann", "APPROVED", "head", 0),
        review("bob", "CHANGES_REQUESTED", "old", 1),
    ];
    let blocked = approved(&reviews);
    assert_eq!(
        blocked,
        ApprovalVerdict::ChangesRequested {
            reviewer: "bob".into()
        }
    );
    assert_eq!(blocked.reason(), Some("bob requested changes".to_string()));
    // bob's newer approval replaces his request; a later comment changes nothing.
    let reviews = [
        review("bob", "CHANGES_REQUESTED", "old", 0),
        review("bob", "APPROVED", "head", 1),
        review("bob", "COMMENTED", "head", 2),
    ];
    assert_eq!(approved(&reviews), ApprovalVerdict::Approved);
    assert_eq!(approved(&reviews).reason(), None);
    assert_eq!(approved(&[]), not("no approval"));
    assert_eq!(approved(&[]).reason(), Some("no approval".to_string()));
    // A dismissal withdraws the verdict.
    let reviews = [
        review("ann", "APPROVED", "head", 0),
        review("ann", "DISMISSED", "head", 1),
    ];
    assert_eq!(approved(&reviews), not("no approval"));
}

#[test]
fn only_reviewers_with_write_access_count() {
    let approved = |reviews: &[Review]| approved_at_head(reviews, "head", &writers);
    // A MEMBER with read access neither approves...
    assert_eq!(
        approved(&[review("mallory", "APPROVED", "head", 0)]),
        ApprovalVerdict::NotApproved(
            "no approval from an account with write access (not counted: mallory (read))".into()
        )
    );
    // ...nor blocks.
    let reviews = [
        review("ann", "APPROVED", "head", 0),
        review("mallory", "CHANGES_REQUESTED", "head", 1),
    ];
    assert_eq!(approved(&reviews), ApprovalVerdict::Approved);
    // An unreadable permission is a reason, never a guess.
    let reviews = [
        review("ann", "APPROVED", "head", 0),
        review("unknown", "APPROVED", "head", 1),
    ];
    assert_eq!(
        approved(&reviews),
        ApprovalVerdict::NotApproved(
            "unknown's approval cannot be counted: reading unknown's permission was refused (403)"
                .into()
        )
    );
    assert_eq!(reviewers(&reviews), vec!["ann", "unknown"]);
    assert_eq!(
        approved_since(
            &[review("mallory", "APPROVED", "head", 0)],
            "head",
            &writers
        ),
        None
    );
    assert_eq!(
        Access::from_permission(Some("write"), Some("maintain")),
        Access::Write
    );
    assert_eq!(
        Access::from_permission(Some("read"), Some("triage")),
        Access::Without("triage".into())
    );
}

/// A bot's verdict by one rule, whatever API read it: its request for changes at the head
/// blocks (fail closed), on an older head it no longer speaks, and its approval never counts.
/// Its permission is never asked.
#[test]
fn a_bots_review_blocks_at_the_head_and_never_approves() {
    let never_asked = |login: &str| -> Access { panic!("{login}'s permission was asked") };
    let bot = |state: &str, commit: &str, minute: i64| review("linter[bot]", state, commit, minute);
    let reviews = [
        review("ann", "APPROVED", "head", 0),
        bot("CHANGES_REQUESTED", "head", 1),
    ];
    assert_eq!(
        approved_at_head(&reviews, "head", &|login| if login == "ann" {
            Access::Write
        } else {
            never_asked(login)
        }),
        ApprovalVerdict::ChangesRequested {
            reviewer: "linter (bot)".into()
        }
    );
    assert_eq!(reviewers(&reviews), vec!["ann"]);
    let writers_only = |login: &str| {
        if login == "ann" {
            Access::Write
        } else {
            never_asked(login)
        }
    };
    let reviews = [
        review("ann", "APPROVED", "head", 0),
        bot("CHANGES_REQUESTED", "old", 1),
    ];
    assert_eq!(
        approved_at_head(&reviews, "head", &writers_only),
        ApprovalVerdict::Approved
    );
    assert_eq!(
        approved_at_head(&[bot("APPROVED", "head", 0)], "head", &writers_only),
        ApprovalVerdict::NotApproved(
            "no approval from an account with write access (not counted: linter (bot))".into()
        )
    );
    assert_eq!(
        approved_since(&[bot("APPROVED", "head", 0)], "head", &|_| Access::Write),
        None
    );
}

/// One account is one reviewer though its login changed between two reviews (an account
/// renamed; a bot's login spelt two ways): matched by id where known.
#[test]
fn reviewers_are_matched_by_account_id() {
    let mut first = review("old-name", "CHANGES_REQUESTED", "head", 0);
    first.user_id = Some(7);
    let mut second = review("new-name", "APPROVED", "head", 1);
    second.user_id = Some(7);
    let reviews = [first, second];
    assert_eq!(
        approved_at_head(&reviews, "head", &|_| Access::Write),
        ApprovalVerdict::Approved
    );
    assert_eq!(reviewers(&reviews), vec!["new-name"]);
    // Two accounts that happen to share a login text are two reviewers.
    let mut ann = review("ann", "APPROVED", "head", 0);
    ann.user_id = Some(1);
    let mut other = review("ANN", "CHANGES_REQUESTED", "head", 1);
    other.user_id = Some(2);
    assert_eq!(
        approved_at_head(&[ann, other], "head", &|_| Access::Write),
        ApprovalVerdict::ChangesRequested {
            reviewer: "ANN".into()
        }
    );
}

/// The merge gate's approval time: the newest counted approval of the head, by a human with
/// write access; a request for changes, an older commit, a bot or a reader adds none.
#[test]
fn the_approval_time_is_the_newest_counted_approval_of_the_head() {
    let since = |reviews: &[Review]| approved_since(reviews, "head", &writers);
    let reviews = [
        review("ann", "APPROVED", "head", 3),
        review("cy", "APPROVED", "head", 7),
        review("dee", "CHANGES_REQUESTED", "head", 9),
        review("eve", "APPROVED", "old", 11),
        review("mallory", "APPROVED", "head", 12),
        review("dependabot[bot]", "APPROVED", "head", 13),
    ];
    assert_eq!(since(&reviews), Some(now() + Duration::minutes(7)));
    assert_eq!(since(&reviews[2..]), None, "nothing counted: no time");
}

/// Write access is the base role or the role itself being admin, maintain or write.
#[test]
fn write_access_is_read_from_either_the_permission_or_the_role() {
    assert_eq!(
        Access::from_permission(Some("write"), Some("triage")),
        Access::Write
    );
    assert_eq!(
        Access::from_permission(Some("read"), Some("maintain")),
        Access::Write
    );
    assert_eq!(
        Access::from_permission(Some("read"), Some("triage")),
        Access::Without("triage".into())
    );
    assert_eq!(
        Access::from_permission(None, None),
        Access::Without("none".into())
    );
}

/// The verdict as the other rules give theirs: only an approval passes.
#[test]
fn only_an_approval_passes_as_a_result() {
    assert_eq!(ApprovalVerdict::Approved.into_result(), Ok(()));
    assert_eq!(
        ApprovalVerdict::NotApproved("no approval".into()).into_result(),
        Err(crate::policy::merge::approval::NotApproved(
            "no approval".into()
        ))
    );
    assert_eq!(
        ApprovalVerdict::ChangesRequested {
            reviewer: "bob".into()
        }
        .into_result(),
        Err(crate::policy::merge::approval::NotApproved(
            "bob requested changes".into()
        ))
    );
}
