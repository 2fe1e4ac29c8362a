//! Every GraphQL document gh-sweep sends: an operation from its `.graphql` file with the
//! fragments it spreads, put together at compile time. A test checks each against GitHub's
//! whole published schema (`@octokit/graphql-schema`).

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::item::ItemRef;

/// One operation, ready to send: one of the fixed documents below, or a batch built for the
/// items it reads.
pub(crate) struct Document {
    /// The operation's name, as GitHub's answers and the fake's routes know it.
    pub name: &'static str,
    pub text: Cow<'static, str>,
}

macro_rules! document {
    ($name:literal: $($file:literal),+) => {
        Document {
            name: $name,
            text: Cow::Borrowed(concat!($(include_str!($file), "\n"),+)),
        }
    };
}

/// A page of a PR search, each PR with every fact the merge rules take.
pub(crate) const PULLS_PAGE: Document = document!("PullsPage": "pulls.graphql", "pull_facts.graphql",
    "file_facts.graphql", "review_facts.graphql", "context_facts.graphql", "suite_facts.graphql");

/// One PR on its own, with the same facts.
pub(crate) const PULL: Document = document!("Pull": "pull.graphql", "pull_facts.graphql",
    "file_facts.graphql", "review_facts.graphql", "context_facts.graphql", "suite_facts.graphql");

/// The next page of one PR's reviews.
pub(crate) const PULL_REVIEWS: Document =
    document!("PullReviews": "pull_reviews.graphql", "review_facts.graphql");

/// The next page of a commit's rollup contexts.
pub(crate) const COMMIT_CONTEXTS: Document =
    document!("CommitContexts": "commit_contexts.graphql", "context_facts.graphql");

/// The next page of a commit's check suites.
pub(crate) const COMMIT_SUITES: Document =
    document!("CommitSuites": "commit_suites.graphql", "suite_facts.graphql");

/// A page of a repository's open issues and PRs, for the stale rules.
pub(crate) const OPEN_ITEMS_PAGE: Document = document!("OpenItemsPage": "open_items.graphql", "item_facts.graphql", "timeline_facts.graphql");

/// One issue or PR on its own, for the stale rules.
pub(crate) const ITEM: Document =
    document!("Item": "item.graphql", "item_facts.graphql", "timeline_facts.graphql");

/// The older timeline entries of one issue or PR.
pub(crate) const ITEM_TIMELINE: Document =
    document!("ItemTimeline": "item_timeline.graphql", "timeline_facts.graphql");

/// A repository's PRs of every state, most recently updated first: what changed since the
/// last tick of `poll`.
pub(crate) const PULLS_CHANGED: Document = document!("PullsChanged": "pulls_changed.graphql");

/// Which PRs a page of a PR search holds, asked when one of its nodes came back `null`.
pub(crate) const PULLS_PAGE_NUMBERS: Document =
    document!("PullsPageNumbers": "pulls_numbers.graphql");

/// Which items a page of open items holds, asked when one of its nodes came back `null`.
pub(crate) const OPEN_ITEM_NUMBERS: Document =
    document!("OpenItemNumbers": "open_item_numbers.graphql");

/// The fragments a batch of issues and PRs spreads, for the stale rules.
const ITEM_FRAGMENTS: &[&str] = &[
    include_str!("item_facts.graphql"),
    include_str!("timeline_facts.graphql"),
];

/// The fragments a batch of PRs spreads, for the merge rules.
const PULL_FRAGMENTS: &[&str] = &[
    include_str!("pull_facts.graphql"),
    include_str!("file_facts.graphql"),
    include_str!("review_facts.graphql"),
    include_str!("context_facts.graphql"),
    include_str!("suite_facts.graphql"),
];

/// GitHub's GraphQL `Int` is 32 bits ("Scalars", Int: "a signed 32-bit numeric non-fractional
/// value"): an issue number past it cannot be asked, and GitHub refuses a whole query whose
/// variable holds one ("Variable $number of type Int! was provided invalid value", as answered
/// in octokit/graphql-action#7). Such an item is that item's failure before anything is sent.
pub(crate) fn askable(item: &ItemRef) -> Result<i32, NotAskable> {
    i32::try_from(item.number).map_err(|_| NotAskable { item: item.clone() })
}

/// An item whose number GraphQL's `Int` cannot hold.
#[derive(Clone, Debug, thiserror::Error)]
#[error(
    "{item}: #{} is past GraphQL's largest Int ({}), so no issue or pull request has that number",
    item.number,
    i32::MAX
)]
pub(crate) struct NotAskable {
    pub item: ItemRef,
}

/// Where one item of a batch is in its answer: the repository's alias and the item's, as in
/// `data.r0.i3`.
pub(crate) struct Alias {
    pub repo: String,
    pub item: String,
}

/// A batch's document, its variables, and where each item is in its answer.
pub(crate) type Batch = (Document, Value, Vec<Alias>);

/// A batch of issues or PRs read in one query (a rerun line's `--only` list): one aliased
/// `repository` per repository, one aliased field per item under it, each with the same facts
/// a page carries. Every item must be [`askable`]. Returns the document, its variables and
/// where each item is (in the order given).
fn batch(
    name: &'static str,
    field: &str,
    selection: &str,
    fragments: &[&str],
    items: &[ItemRef],
) -> Batch {
    batch_after(name, field, selection, fragments, items, &[])
}

/// [`batch`], each item's selection with its own cursor (`$a` in it, `after[i]`) when given.
fn batch_after(
    name: &'static str,
    field: &str,
    selection: &str,
    fragments: &[&str],
    items: &[ItemRef],
    after: &[String],
) -> Batch {
    let mut repos: Vec<&crate::item::RepoRef> = Vec::new();
    for item in items {
        if !repos.contains(&&item.repo) {
            repos.push(&item.repo);
        }
    }
    let mut variables = serde_json::Map::new();
    let mut declared = Vec::new();
    let mut body = String::new();
    let mut aliases: Vec<Option<Alias>> = items.iter().map(|_| None).collect();
    for (r, repo) in repos.iter().enumerate() {
        declared.push(format!("$o{r}: String!, $n{r}: String!"));
        variables.insert(format!("o{r}"), json!(&*repo.owner));
        variables.insert(format!("n{r}"), json!(&*repo.name));
        let _ = writeln!(body, "  r{r}: repository(owner: $o{r}, name: $n{r}) {{");
        for (i, item) in items
            .iter()
            .enumerate()
            .filter(|(_, item)| item.repo == **repo)
        {
            declared.push(format!("$i{i}: Int!"));
            variables.insert(format!("i{i}"), json!(item.number));
            let selection = match after.get(i) {
                Some(cursor) => {
                    declared.push(format!("$a{i}: String"));
                    variables.insert(format!("a{i}"), json!(cursor));
                    selection.replace("$a", &format!("$a{i}"))
                }
                None => selection.to_string(),
            };
            let _ = writeln!(body, "    i{i}: {field}(number: $i{i}) {{ {selection} }}");
            aliases[i] = Some(Alias {
                repo: format!("r{r}"),
                item: format!("i{i}"),
            });
        }
        body.push_str("  }\n");
    }
    let mut text = format!("query {name}({}) {{\n{body}", declared.join(", "));
    text.push_str("  rateLimit {\n    cost\n    remaining\n    resetAt\n    limit\n  }\n}\n");
    for fragment in fragments {
        text.push_str(fragment);
        text.push('\n');
    }
    (
        Document {
            name,
            text: Cow::Owned(text),
        },
        Value::Object(variables),
        aliases.into_iter().flatten().collect(),
    )
}

/// Issues and PRs by number, for the stale rules: `issueOrPullRequest(number:)` each.
pub(crate) fn items(items: &[ItemRef]) -> Batch {
    batch(
        "Items",
        "issueOrPullRequest",
        "... on Issue { ...IssueFacts } ... on PullRequest { ...PullItemFacts }",
        ITEM_FRAGMENTS,
        items,
    )
}

/// PRs by number, for the merge rules: `pullRequest(number:)` each.
pub(crate) fn pulls(items: &[ItemRef]) -> Batch {
    batch(
        "Pulls",
        "pullRequest",
        "...PullFacts",
        PULL_FRAGMENTS,
        items,
    )
}

/// The next page of several PRs' changed files in one query, each after its own cursor
/// (`pages`, PR and cursor): `pullRequest(number:) { files(first: 100, after:) }` each, aliased
/// as a batch's are ("Using pagination in the GraphQL API": a connection's next page is asked
/// `after` its `endCursor`; any field may be aliased, "Forming calls with GraphQL").
pub(crate) fn pull_files(pages: &[(ItemRef, String)]) -> Batch {
    let items: Vec<ItemRef> = pages.iter().map(|(item, _)| item.clone()).collect();
    let after: Vec<String> = pages.iter().map(|(_, cursor)| cursor.clone()).collect();
    batch_after(
        "PullFiles",
        "pullRequest",
        "files(first: 100, after: $a) { pageInfo { hasNextPage endCursor } nodes { ...FileFacts } }",
        &[include_str!("file_facts.graphql")],
        &items,
        &after,
    )
}

/// Every document, for the schema check.
#[cfg(test)]
pub(crate) const ALL: &[&Document] = &[
    &PULLS_PAGE,
    &PULL,
    &PULL_REVIEWS,
    &COMMIT_CONTEXTS,
    &COMMIT_SUITES,
    &OPEN_ITEMS_PAGE,
    &ITEM,
    &ITEM_TIMELINE,
    &PULLS_PAGE_NUMBERS,
    &OPEN_ITEM_NUMBERS,
    &PULLS_CHANGED,
];

/// GitHub's pinned schema, which the fake GitHub of the end-to-end tests executes against too.
#[cfg(test)]
#[path = "../../../tests/cli/support/schema.rs"]
#[allow(unreachable_pub)] // `pub` for the end-to-end tests, which include it too
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
            let nodes = count(document.name, &document.text);
            assert!(nodes <= 500_000, "{} asks for {nodes} nodes", document.name);
        }
        // A batch of 100 issues, and of 100 PRs (more than a batch ever holds), across two
        // repositories.
        for (document, _, _) in [super::items(&batch(100)), super::pulls(&batch(100))] {
            let nodes = count(document.name, &document.text);
            assert!(nodes <= 500_000, "{} asks for {nodes} nodes", document.name);
        }
    }

    fn batch(size: u64) -> Vec<crate::item::ItemRef> {
        let a: crate::item::RepoRef = "octo/demo".parse().unwrap();
        let b: crate::item::RepoRef = "octo/other".parse().unwrap();
        (1..=size)
            .map(|n| crate::item::ItemRef::new(if n % 3 == 0 { &b } else { &a }, n))
            .collect()
    }

    /// A batch names each item once, under its repository's alias, and validates against
    /// GitHub's schema; its variables are the items' numbers.
    #[test]
    fn a_batch_of_items_is_one_valid_query_of_aliased_fields() {
        let schema = schema();
        let files: Vec<(crate::item::ItemRef, String)> = batch(7)
            .into_iter()
            .map(|item| (item, "cursor".to_string()))
            .collect();
        for (document, variables, aliases) in [
            super::items(&batch(7)),
            super::pulls(&batch(7)),
            super::pull_files(&files),
        ] {
            if let Err(errors) = check(schema, document.name, &document.text) {
                panic!("{}:\n{errors}\n{}", document.name, document.text);
            }
            assert_eq!(aliases.len(), 7);
            assert_eq!(
                (aliases[2].repo.as_str(), aliases[2].item.as_str()),
                ("r1", "i2")
            );
            assert_eq!(variables["i2"], 3);
            assert_eq!(variables["n1"], "other");
        }
        let too_big = crate::item::ItemRef::new(&"o/r".parse().unwrap(), 3_000_000_000);
        assert!(super::askable(&too_big)
            .unwrap_err()
            .to_string()
            .contains("#3000000000 is past GraphQL's largest Int (2147483647)"));
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
            if let Err(errors) = check(schema, document.name, &document.text) {
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
        let argument = super::PULL_REVIEWS
            .text
            .replace("first: 100", "first: 100, since: $after");
        assert!(check(schema, "PullReviews", &argument).is_err());
        let typed = super::PULL
            .text
            .replace("$number: Int!", "$number: String!");
        assert!(check(schema, "Pull", &typed).is_err());
    }
}
