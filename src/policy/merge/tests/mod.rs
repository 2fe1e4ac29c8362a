//! Unit tests of the merge rules: each guard and rule against plain facts, no server.

use super::*;
use chrono::{DateTime, Duration, TimeZone, Utc};

mod approval;
mod checks;

#[test]
fn a_merge_method_is_read_from_its_config_word_and_written_back_as_it() {
    for method in MergeMethod::ALL {
        assert_eq!(MergeMethod::from_config(method.word()), Ok(method));
        assert_eq!(method.to_string(), method.word());
    }
    let words: Vec<&str> = MergeMethod::ALL.iter().map(|m| m.word()).collect();
    assert_eq!(words, ["merge", "squash", "rebase"]);
    assert_eq!(
        MergeMethod::from_config("Squash").map_err(|e| e.to_string()),
        Err(r#"invalid [sweep] merge_method = "Squash": use "merge", "squash" or "rebase""#.into())
    );
}

#[test]
fn a_rule_is_named_as_the_config_spells_it() {
    for rule in [Rule::DocsOnly, Rule::Green, Rule::ApprovedAtHead] {
        let spelled = serde_json::to_value(rule).unwrap();
        assert_eq!(spelled, rule.name(), "{rule:?}");
    }
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 10, 12, 12, 0, 0).unwrap()
}

fn file(path: &str) -> ChangedFile {
    ChangedFile {
        path: path.into(),
        previous: None,
    }
}

#[test]
fn held_by_title_or_label() {
    let rules = PollRules::default();
    assert_eq!(
        held("Runbook (HELD)", &[], &rules).as_deref(),
        Some("title has (HELD)")
    );
    assert!(held("Runbook", &["Do-Not-Merge".into()], &rules).is_some());
    assert_eq!(held("Runbook", &["docs".into()], &rules), None);
}

#[test]
fn failed_is_not_in_flight_but_backs_off() {
    // Seed 000's bug: 'failed' missing from the in-flight statuses let every tick re-enqueue.
    let flying: Vec<QueueStatus> = QueueStatus::ALL
        .into_iter()
        .filter(|status| in_flight(*status))
        .collect();
    assert_eq!(
        flying,
        vec![
            QueueStatus::Pending,
            QueueStatus::Claimed,
            QueueStatus::Done
        ]
    );
}

#[test]
fn a_queue_status_reads_back_from_its_stored_word() {
    let words: Vec<&str> = QueueStatus::ALL
        .iter()
        .map(|status| status.as_str())
        .collect();
    assert_eq!(words, ["pending", "claimed", "done", "abandoned", "failed"]);
    for status in QueueStatus::ALL {
        assert_eq!(status.as_str().parse::<QueueStatus>(), Ok(status));
        assert_eq!(status.to_string(), status.as_str());
    }
    assert_eq!(
        "Pending"
            .parse::<QueueStatus>()
            .map_err(|why| why.to_string()),
        Err("a queue row's status is `Pending`, which gh-sweep does not know".to_string())
    );
}

#[test]
fn docs_only_checks_both_paths_of_a_rename() {
    let globs = PollRules::default().globs().unwrap();
    assert_eq!(
        docs_only(&[file("docs/runbook.md"), file("README.md")], &globs),
        Ok(())
    );
    assert_eq!(
        docs_only(&[file("src/main.rs")], &globs).unwrap_err(),
        crate::policy::merge::NotDocsOnly::NotDocs {
            path: "src/main.rs".into()
        }
    );
    assert_eq!(
        docs_only(&[file("src/main.rs")], &globs)
            .unwrap_err()
            .to_string(),
        "docs-only: src/main.rs is not docs"
    );
    let renamed = ChangedFile {
        path: "docs/old.rs".into(),
        previous: Some("src/old.rs".into()),
    };
    assert_eq!(
        docs_only(&[renamed], &globs).unwrap_err().to_string(),
        "docs-only: src/old.rs is not docs"
    );
    let many: Vec<ChangedFile> = (0..3000).map(|n| file(&format!("docs/{n}.md"))).collect();
    assert!(docs_only(&many, &globs)
        .unwrap_err()
        .to_string()
        .contains("unknown"));
    assert_eq!(
        docs_only(&[], &globs),
        Err(crate::policy::merge::NotDocsOnly::NoFiles)
    );
}

#[test]
fn merge_methods_are_the_repository_s_and_the_rules() {
    let settings = MergeSettings {
        merge: Some(false),
        squash: Some(true),
        rebase: None,
    };
    let rules = BranchRules::default();
    assert_eq!(
        method_allowed(MergeMethod::Merge, "o/r", &settings, &rules)
            .unwrap_err()
            .to_string(),
        "merge_method \"merge\" is not allowed on o/r (it allows squash, rebase): set [sweep] merge_method"
    );
    assert_eq!(
        method_allowed(MergeMethod::Rebase, "o/r", &settings, &rules),
        Ok(()),
        "unknown is not refused"
    );
    let rules = BranchRules {
        allowed_methods: Some(vec!["SQUASH".into()]),
        ..BranchRules::default()
    };
    assert_eq!(
        method_allowed(MergeMethod::Squash, "o/r", &settings, &rules),
        Ok(())
    );
    assert!(method_allowed(MergeMethod::Rebase, "o/r", &settings, &rules).is_err());
}

#[test]
fn each_405_is_told_apart() {
    assert_eq!(
        refusal("Repository rule violations found\n\nChanges must be made through the merge queue"),
        MergeRefusal::MergeQueue
    );
    assert!(!refusal("Merge commits are not allowed on this repository.").retryable());
    assert!(!refusal("Squash merges are not allowed on this repository.").retryable());
    assert!(
        refusal("At least 1 approving review is required by reviewers with write access.")
            .retryable()
    );
    assert!(refusal("Base branch was modified. Review and try the merge again.").retryable());
    assert!(refusal("Pull Request is not mergeable").retryable());
    // runatlantis/atlantis#1176's recorded answer: another method, not the same one again.
    let linear = refusal("This branch must not contain merge commits.");
    assert_eq!(linear, MergeRefusal::MergeCommit);
    assert!(!linear.retryable());
    assert!(linear
        .reason(Some(MergeMethod::Rebase))
        .ends_with("the next attempt uses rebase"));
    assert!(linear.reason(None).contains("no other merge method"));
}

#[test]
fn linear_history_rules_out_a_merge_commit_and_picks_squash_then_rebase() {
    let rules = BranchRules {
        branch: "main".into(),
        linear_history: true,
        ..BranchRules::default()
    };
    let all = MergeSettings::default();
    let choice = choose_method(MergeMethod::Merge, "o/r", &all, &rules, false).unwrap();
    assert_eq!(choice.method, MergeMethod::Squash);
    assert_eq!(
        choice.why.as_deref(),
        Some("squash, not merge: main requires linear history (a ruleset), which rules out a merge commit")
    );
    let no_squash = MergeSettings {
        squash: Some(false),
        ..MergeSettings::default()
    };
    let choice = choose_method(MergeMethod::Merge, "o/r", &no_squash, &rules, false).unwrap();
    assert_eq!(choice.method, MergeMethod::Rebase);
    let merge_only = MergeSettings {
        merge: Some(true),
        squash: Some(false),
        rebase: Some(false),
    };
    assert_eq!(
        choose_method(MergeMethod::Merge, "o/r", &merge_only, &rules, false),
        Err(NoMethod::NoneLeft("main requires linear history (a ruleset), which rules out a merge commit, and o/r allows merge commits only: nothing gh-sweep may send can merge it (allow squash or rebase merges on GitHub)".into()))
    );
    // A configured squash or rebase is kept; no linear history keeps merge.
    let choice = choose_method(MergeMethod::Rebase, "o/r", &all, &rules, false).unwrap();
    assert_eq!((choice.method, choice.why), (MergeMethod::Rebase, None));
    let plain = BranchRules::default();
    let choice = choose_method(MergeMethod::Merge, "o/r", &all, &plain, false).unwrap();
    assert_eq!((choice.method, choice.why), (MergeMethod::Merge, None));
    // GitHub's refusal of a merge commit (classic protection) counts as linear history.
    let choice = choose_method(MergeMethod::Merge, "o/r", &no_squash, &plain, true).unwrap();
    assert_eq!(choice.method, MergeMethod::Rebase);
    assert!(choice
        .why
        .unwrap()
        .contains("must not contain merge commits"));
    // A method the repository does not allow is still the maintainer's to change.
    assert!(matches!(
        choose_method(MergeMethod::Squash, "o/r", &no_squash, &plain, false),
        Err(NoMethod::NotAllowed(_))
    ));
}

#[test]
fn classic_required_checks_join_the_rulesets_and_the_recap_says_what_needs_admin() {
    let rules = BranchRules {
        branch: "main".into(),
        required_checks: vec!["ci".into()],
        described: vec!["required checks `ci`".into()],
        ..BranchRules::default()
    };
    let classic = ClassicProtection {
        protected: true,
        required_checks: vec!["ci".into(), "lint".into()],
    };
    let both = rules.clone().with_classic(&classic);
    assert_eq!(both.required_checks, ["ci", "lint"]);
    assert_eq!(
        both.explain(),
        "the rules on main gh-sweep can read: required checks `ci`, classic protection: required checks `ci`, `lint` (classic protection details need admin; its required checks are read from the branch summary)"
    );
    let none = BranchRules {
        branch: "legacy".into(),
        ..BranchRules::default()
    }
    .with_classic(&ClassicProtection::default());
    assert_eq!(
        none.explain(),
        "gh-sweep can read no ruleset on legacy (classic protection details need admin; its required checks are read from the branch summary)"
    );
    assert!(!none.explain().contains("readable only by admins"));
}
