//! The REST reader's and writer's own tests: what is never sent, which refusals mean a lock,
//! how the list of changes is asked and read.

#[test]
fn a_dot_label_is_never_sent() {
    let client =
        super::Client::replay(crate::github::snapshot::Snapshot::new(crate::clock::wall()));
    let item: crate::item::ItemRef = "o/r#1".parse().unwrap();
    for label in [".", ".."] {
        let write = crate::policy::write::Write::RemoveLabel {
            label: label.to_string(),
        };
        let Err(error) = super::write::send(&client, &item, &write) else {
            panic!("{label}: sent");
        };
        assert!(
            error.message.contains("cannot be addressed"),
            "{}",
            error.message
        );
        assert!(!error.outcome_unknown);
    }
    assert_eq!(client.requests(), 0);
}

#[test]
fn only_githubs_lock_refusal_is_a_refusal_for_the_lock() {
    use crate::github::Refusal;
    let locked = "Unable to create comment because issue is locked.";
    assert_eq!(Refusal::of(403, Some(locked)), Refusal::Locked);
    assert_eq!(
        Refusal::of(403, Some("Resource not accessible by integration")),
        Refusal::Other
    );
    assert_eq!(Refusal::of(422, Some(locked)), Refusal::Other);
    assert_eq!(Refusal::of(403, None), Refusal::Other);
    let refusal = |refusal, outcome_unknown| crate::github::WriteError {
        status: Some(403),
        message: format!("POST /repos/o/r/issues/1/comments answered 403 Forbidden: {locked}"),
        outcome_unknown,
        refusal,
    };
    assert!(super::refused_as_locked(&refusal(Refusal::Locked, false)));
    assert!(!super::refused_as_locked(&refusal(Refusal::Locked, true)));
    // The kind decides, not the words: the client sets it where GitHub's answer arrives.
    assert!(!super::refused_as_locked(&refusal(Refusal::Other, false)));
}

#[test]
fn changes_are_asked_by_update_in_whole_seconds_of_every_state() {
    use super::StaleReader;
    use crate::github::snapshot::{Recorded, Snapshot};
    let path = "/repos/o/r/issues?state=all&since=2026-12-01T10:00:00Z&sort=created&direction=asc&per_page=100";
    let answer = |body: serde_json::Value| Recorded::of(200, &body, None);
    let mut snapshot = Snapshot::new(crate::clock::wall());
    snapshot.insert(
        path,
        answer(serde_json::json!([
            {"number": 7, "updated_at": "2026-12-01T10:03:00Z", "pull_request": {}},
            {"number": 9, "updated_at": "2026-12-01T10:00:00Z"},
        ])),
    );
    let repo: crate::item::RepoRef = "o/r".parse().unwrap();
    let since = "2026-12-01T10:00:00.750Z".parse().unwrap();
    let client = super::Client::replay(snapshot.clone());
    let changed = client.changed_since(&repo, since).unwrap();
    let at = |text: &str| text.parse::<chrono::DateTime<chrono::Utc>>().unwrap();
    assert_eq!(
        changed,
        [
            (7, at("2026-12-01T10:03:00Z")),
            (9, at("2026-12-01T10:00:00Z"))
        ]
    );
    // An entry that does not say which item or when: the list is not to be trusted.
    snapshot.insert(path, answer(serde_json::json!([{"number": 7}])));
    let client = super::Client::replay(snapshot);
    assert!(matches!(
        client.changed_since(&repo, since),
        Err(super::ApiError::Item { status: None, .. })
    ));
}

#[test]
fn encodes_label_names() {
    assert_eq!(super::segment("needs info/triage"), "needs%20info%2Ftriage");
}
