//! Every GraphQL document gh-sweep sends: an operation from its `.graphql` file with the
//! fragments it spreads, put together at compile time. A test checks each against GitHub's
//! whole published schema (`@octokit/graphql-schema`).

/// One operation, ready to send.
pub struct Document {
    /// The operation's name, as GitHub's answers and the fake's routes know it.
    pub name: &'static str,
    pub text: &'static str,
}

macro_rules! document {
    ($name:literal: $($file:literal),+) => {
        Document {
            name: $name,
            text: concat!($(include_str!($file), "\n"),+),
        }
    };
}

/// A page of a PR search, each PR with every fact the merge rules take.
pub const PULLS_PAGE: Document = document!("PullsPage": "pulls.graphql", "pull_facts.graphql",
    "file_facts.graphql", "review_facts.graphql", "context_facts.graphql", "suite_facts.graphql");

/// One PR on its own, with the same facts.
pub const PULL: Document = document!("Pull": "pull.graphql", "pull_facts.graphql",
    "file_facts.graphql", "review_facts.graphql", "context_facts.graphql", "suite_facts.graphql");

/// The next page of one PR's files.
pub const PULL_FILES: Document = document!("PullFiles": "pull_files.graphql", "file_facts.graphql");

/// The next page of one PR's reviews.
pub const PULL_REVIEWS: Document =
    document!("PullReviews": "pull_reviews.graphql", "review_facts.graphql");

/// The next page of a commit's rollup contexts.
pub const COMMIT_CONTEXTS: Document =
    document!("CommitContexts": "commit_contexts.graphql", "context_facts.graphql");

/// The next page of a commit's check suites.
pub const COMMIT_SUITES: Document =
    document!("CommitSuites": "commit_suites.graphql", "suite_facts.graphql");

/// A page of a repository's open issues and PRs, for the stale rules.
pub const OPEN_ITEMS_PAGE: Document = document!("OpenItemsPage": "open_items.graphql", "item_facts.graphql", "timeline_facts.graphql");

/// One issue or PR on its own, for the stale rules.
pub const ITEM: Document =
    document!("Item": "item.graphql", "item_facts.graphql", "timeline_facts.graphql");

/// The older timeline entries of one issue or PR.
pub const ITEM_TIMELINE: Document =
    document!("ItemTimeline": "item_timeline.graphql", "timeline_facts.graphql");

/// Every document, for the schema check.
pub const ALL: &[&Document] = &[
    &PULLS_PAGE,
    &PULL,
    &PULL_FILES,
    &PULL_REVIEWS,
    &COMMIT_CONTEXTS,
    &COMMIT_SUITES,
    &OPEN_ITEMS_PAGE,
    &ITEM,
    &ITEM_TIMELINE,
];

/// GitHub's pinned schema, which the fake GitHub of the end-to-end tests executes against too.
#[cfg(test)]
#[path = "../../../tests/cli/support/schema.rs"]
mod pinned_schema;

#[cfg(test)]
mod tests {
    use apollo_compiler::{ExecutableDocument, Schema};

    fn schema() -> &'static apollo_compiler::validation::Valid<Schema> {
        super::pinned_schema::schema()
    }

    fn check(
        schema: &apollo_compiler::validation::Valid<Schema>,
        name: &str,
        text: &str,
    ) -> Result<(), String> {
        ExecutableDocument::parse_and_validate(schema, text, format!("{name}.graphql"))
            .map(|_| ())
            .map_err(|errors| errors.to_string())
    }

    /// GitHub's node count of a query ("Rate limits and query limits for the GraphQL API",
    /// Node limit): each connection's `first`/`last` times those of the connections around it,
    /// summed. A page-size variable counts at GitHub's largest, 100.
    fn node_count(document: &apollo_compiler::ExecutableDocument) -> u64 {
        use apollo_compiler::ast::Value;
        use apollo_compiler::executable::{Selection, SelectionSet};
        fn walk(
            document: &apollo_compiler::ExecutableDocument,
            set: &SelectionSet,
            around: u64,
        ) -> u64 {
            set.selections
                .iter()
                .map(|selection| match selection {
                    Selection::Field(field) => {
                        let size = field
                            .arguments
                            .iter()
                            .filter(|argument| argument.name == "first" || argument.name == "last")
                            .map(|argument| match argument.value.as_ref() {
                                Value::Int(value) => value.try_to_i32().map_or(100, |n| n as u64),
                                _ => 100,
                            })
                            .next();
                        match size {
                            Some(size) => {
                                around * size + walk(document, &field.selection_set, around * size)
                            }
                            None => walk(document, &field.selection_set, around),
                        }
                    }
                    Selection::FragmentSpread(spread) => document
                        .fragments
                        .get(&spread.fragment_name)
                        .map_or(0, |fragment| {
                            walk(document, &fragment.selection_set, around)
                        }),
                    Selection::InlineFragment(inline) => {
                        walk(document, &inline.selection_set, around)
                    }
                })
                .sum()
        }
        document
            .operations
            .iter()
            .map(|operation| walk(document, &operation.selection_set, 1))
            .sum()
    }

    /// No query asks for more than GitHub's 500,000 nodes, even at pages of 100; GitHub's own
    /// two examples count as the docs say (550 and 22,060 nodes).
    #[test]
    fn no_query_asks_for_more_nodes_than_github_allows() {
        let schema = schema();
        let count = |name: &str, text: &str| {
            let document = ExecutableDocument::parse_and_validate(schema, text, name)
                .unwrap_or_else(|errors| panic!("{name}: {errors}"));
            node_count(&document)
        };
        let simple = "query { viewer { repositories(first: 50) { edges { repository: node { name issues(first: 10) { totalCount edges { node { title bodyHTML } } } } } } } }";
        assert_eq!(count("simple", simple), 550);
        let complex = "query { viewer { repositories(first: 50) { edges { repository: node { name pullRequests(first: 20) { edges { pullRequest: node { title comments(first: 10) { edges { comment: node { bodyHTML } } } } } } issues(first: 20) { totalCount edges { issue: node { title bodyHTML comments(first: 10) { edges { comment: node { bodyHTML } } } } } } } } } followers(first: 10) { edges { follower: node { login } } } } }";
        assert_eq!(count("complex", complex), 22_060);
        for document in super::ALL {
            let nodes = count(document.name, document.text);
            assert!(nodes <= 500_000, "{} asks for {nodes} nodes", document.name);
        }
    }

    /// Both read paths see the same events: every event type of `EVENT_NAMES` is a member of
    /// GitHub's timeline union for its kind of item, is asked in each stale document's
    /// `itemTypes`, and has its fields in the `TimelineFacts` fragment.
    #[test]
    fn the_stale_documents_ask_every_event_rest_reports() {
        use apollo_compiler::schema::ExtendedType;
        let schema = schema();
        let members = |union: &str| match schema.types.get(union) {
            Some(ExtendedType::Union(union)) => union
                .members
                .iter()
                .map(|member| member.name.to_string())
                .collect::<Vec<_>>(),
            _ => panic!("GitHub's schema has no union {union}"),
        };
        let issue_members = members("IssueTimelineItems");
        let pull_members = members("PullRequestTimelineItems");
        let enum_value = |typename: &str| {
            let mut out = String::new();
            for (index, c) in typename.chars().enumerate() {
                if c.is_ascii_uppercase() && index > 0 {
                    out.push('_');
                }
                out.push(c.to_ascii_uppercase());
            }
            out
        };
        for (typename, _, pr_only) in crate::github::graphql::stale_parse::EVENT_NAMES {
            assert!(pull_members.iter().any(|m| m == typename), "{typename}");
            assert_eq!(
                issue_members.iter().any(|m| m == typename),
                !pr_only,
                "{typename} on an issue"
            );
            let value = enum_value(typename);
            for document in [&super::OPEN_ITEMS_PAGE, &super::ITEM, &super::ITEM_TIMELINE] {
                let asked = document
                    .text
                    .lines()
                    .filter(|line| line.trim() == value)
                    .count();
                assert_eq!(
                    asked,
                    if *pr_only { 1 } else { 2 },
                    "{value} in {}",
                    document.name
                );
                assert!(
                    document.text.contains(&format!("... on {typename} {{")),
                    "{typename} in {}",
                    document.name
                );
            }
        }
    }

    #[test]
    fn every_query_is_valid_against_githubs_whole_schema() {
        let schema = schema();
        let mut names = std::collections::BTreeSet::new();
        for document in super::ALL {
            assert!(names.insert(document.name), "{} twice", document.name);
            assert!(
                document.text.contains(&format!("query {}(", document.name)),
                "{} is not the operation's name",
                document.name
            );
            if let Err(errors) = check(schema, document.name, document.text) {
                panic!(
                    "{} does not validate against GitHub's schema:\n{errors}",
                    document.name
                );
            }
        }
        // A misspelt field, an argument GitHub does not have, a wrong type: each refused.
        let misspelt = super::PULL
            .text
            .replace("mergeStateStatus", "mergeStateStatuss");
        assert!(check(schema, "Pull", &misspelt).is_err());
        let argument = super::PULL_FILES
            .text
            .replace("first: 100", "first: 100, since: $after");
        assert!(check(schema, "PullFiles", &argument).is_err());
        let typed = super::PULL
            .text
            .replace("$number: Int!", "$number: String!");
        assert!(check(schema, "Pull", &typed).is_err());
    }
}
