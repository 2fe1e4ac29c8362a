//! The fake GitHub's GraphQL endpoint (`POST /graphql`; `/api/graphql` on GitHub Enterprise
//! Server, "Forming calls with GraphQL", The GraphQL endpoint). It executes every document it
//! is sent, whatever its operation, the way GitHub does:
//! - The document is parsed and validated against GitHub's published schema (the pinned
//!   `@octokit/graphql-schema`, see `schema.rs`); an invalid one is refused whole with HTTP 200,
//!   no `data`, and its `errors` (answers recorded in refined-github/refined-github#6946).
//! - GitHub's connection rules ("Rate limits and node limits for the GraphQL API", Node limit;
//!   "Using pagination in the GraphQL API"): every connection that asks `nodes` or `edges`
//!   takes a `first` or `last` of 1–100; one that asks only `totalCount` needs neither (cli/cli's
//!   `api/query_builder.go` relies on it); a call asks at most 500,000 nodes. A call breaking
//!   them is refused whole, as a validation error is.
//! - Its cost by GitHub's formula ("Calculating a rate limit score before running the call"):
//!   the requests each connection needs if every one were full, summed, divided by 100 and
//!   rounded, at least 1, out of the points left this hour; a query the points left cannot pay
//!   for is refused whole: `{"errors": [{"type": "RATE_LIMITED", …}]}` (renovatebot/renovate#21861)
//!   with HTTP 200 and `x-ratelimit-remaining: 0` ("Exceeding the rate limit").
//! - Every field is resolved from the same world the REST routes serve (`graphql_world.rs`). A
//!   field the fake does not model is not answered with something plausible: the request
//!   answers 599 and the test fails.
//! - A field that cannot be resolved is `null` and its error names its `path` and GitHub's
//!   `type` (`NOT_FOUND`: "Could not resolve to a PullRequest with the number of 5."; GitHub
//!   docs, "Forming calls with GraphQL", and answers recorded in renovatebot/renovate#21861);
//!   a `null` in a non-null field makes its parent `null`, as the GraphQL spec's "Handling Field
//!   Errors" says.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use apollo_compiler::executable::{Operation, Selection, SelectionSet};
use apollo_compiler::resolvers::Execution;
use apollo_compiler::validation::Valid;
use apollo_compiler::{ast, ExecutableDocument};
use serde_json::{json, Value};

use super::graphql_world::{Cx, Obj, TYPE_SEPARATOR};
use super::server::{reply, Reply, UNKNOWN};
use super::world::WorldState;

/// GitHub's largest page of any connection, and its node limit.
const MAX_PAGE: u64 = 100;
const MAX_NODES: u64 = 500_000;

/// Answers one GraphQL request.
pub(super) fn answer(world: &mut WorldState, page_size: usize, body: &str, accept: &str) -> Reply {
    if let Some(refusal) = preview_refusal(body, accept) {
        return refusal;
    }
    let request: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let Some(query) = request["query"].as_str() else {
        // GitHub: `{"errors": [{"message": "A query attribute must be specified and must be a
        // string."}]}`; our client never sends that, so the test fails instead.
        return reply(
            UNKNOWN,
            json!({"message": "a GraphQL request without a query"}),
        );
    };
    let document = match document(query) {
        Ok(document) => document,
        Err(errors) => return reply(200, json!({"errors": errors})),
    };
    let name = request["operationName"].as_str();
    let Ok(operation) = document.operations.get(name) else {
        return reply(
            200,
            json!({"errors": [{"message": format!("No operation named \"{}\"", name.unwrap_or_default())}]}),
        );
    };
    let variables = request["variables"].clone();
    let limits = limits(&document, operation, &variables);
    if !limits.errors.is_empty() {
        return reply(200, json!({"errors": limits.errors}));
    }
    let cost = ((limits.requests as f64) / 100.0).round().max(1.0) as i64;
    if cost > world.graphql_points {
        let limited = json!({"errors": [{"type": "RATE_LIMITED", "message": "API rate limit exceeded for user ID 1."}]});
        // "Rate limits and query limits for the GraphQL API", Exceeding the rate limit: "the
        // response status will still be `200`, but you will receive an error message, and the
        // value of the `x-ratelimit-remaining` header will be `0`", until `x-ratelimit-reset`.
        let mut answer = reply(200, limited);
        let reset = (chrono::Utc::now() + chrono::Duration::hours(1)).timestamp();
        answer.headers.extend([
            ("x-ratelimit-remaining".to_string(), "0".to_string()),
            ("x-ratelimit-reset".to_string(), reset.to_string()),
            ("x-ratelimit-resource".to_string(), "graphql".to_string()),
        ]);
        return answer;
    }
    world.graphql_points -= cost;
    let cx = Cx::new(world, page_size, cost, limits.nodes);
    let raw: apollo_compiler::response::JsonValue =
        serde_json::from_value(variables).unwrap_or_default();
    let variables = match raw {
        apollo_compiler::response::JsonValue::Object(map) => map,
        _ => Default::default(),
    };
    let execution = Execution::new(super::schema::schema(), &document)
        .operation(operation)
        .raw_variable_values(&variables);
    let response = match execution.execute_sync(&Obj::query(&cx)) {
        Ok(response) => response,
        Err(error) => {
            return reply(
                200,
                json!({"errors": [{"message": error.message().to_string()}]}),
            );
        }
    };
    let unmodelled = cx.unmodelled();
    if !unmodelled.is_empty() {
        return reply(
            UNKNOWN,
            json!({"message": format!("the fake GitHub does not model {}", unmodelled.join(", "))}),
        );
    }
    let mut answer = serde_json::to_value(&response).unwrap_or(Value::Null);
    if let Some(errors) = answer.get_mut("errors").and_then(Value::as_array_mut) {
        for error in errors.iter_mut() {
            github_error(error);
        }
    }
    reply(200, answer)
}

/// GitHub's errors carry a `type` (`NOT_FOUND`, `FORBIDDEN`); the executor's carry only a
/// message, so the world's resolvers put the type before it.
fn github_error(error: &mut Value) {
    let Some(message) = error["message"].as_str() else {
        return;
    };
    if let Some((kind, text)) = message.split_once(TYPE_SEPARATOR) {
        // The executor says "resolver error: " before a resolver's message.
        let kind = kind.rsplit(' ').next().unwrap_or(kind);
        let (kind, text) = (kind.to_string(), text.to_string());
        error["type"] = json!(kind);
        error["message"] = json!(text);
    }
}

/// Each distinct document is parsed and validated once: a run sends the same few many times.
fn document(query: &str) -> Result<Arc<Valid<ExecutableDocument>>, Vec<Value>> {
    static DOCUMENTS: OnceLock<Mutex<HashMap<String, Arc<Valid<ExecutableDocument>>>>> =
        OnceLock::new();
    let cache = DOCUMENTS.get_or_init(Default::default);
    if let Some(found) = cache.lock().unwrap().get(query) {
        return Ok(found.clone());
    }
    let parsed =
        ExecutableDocument::parse_and_validate(super::schema::schema(), query, "query.graphql")
            .map_err(|errors| {
                errors
                    .errors
                    .iter()
                    .map(|error| json!({"message": error.error.to_string()}))
                    .collect::<Vec<_>>()
            })?;
    let parsed = Arc::new(parsed);
    cache
        .lock()
        .unwrap()
        .insert(query.to_string(), parsed.clone());
    Ok(parsed)
}

/// What a call asks before it runs: its nodes, the requests its connections need if full, and
/// the refusals of GitHub's connection rules.
#[derive(Default)]
pub struct Limits {
    pub nodes: u64,
    pub requests: u64,
    pub errors: Vec<Value>,
}

/// [`limits`] of a query text, for the fake's own tests.
pub fn limits_of(query: &str, variables: &Value) -> Limits {
    let document = document(query).unwrap_or_else(|errors| panic!("{errors:?}"));
    let operation = document.operations.get(None).unwrap();
    limits(&document, operation, variables)
}

fn limits(document: &ExecutableDocument, operation: &Operation, variables: &Value) -> Limits {
    let mut limits = Limits::default();
    walk(
        document,
        &operation.selection_set,
        1,
        variables,
        &mut limits,
    );
    if limits.nodes > MAX_NODES {
        limits.errors.push(json!({
            "type": "MAX_NODE_LIMIT_EXCEEDED",
            "message": format!("This query requests up to {} possible nodes which exceeds the maximum limit of {MAX_NODES}.", limits.nodes),
        }));
    }
    limits
}

fn argument(field: &apollo_compiler::executable::Field, name: &str, variables: &Value) -> Value {
    let Some(found) = field
        .arguments
        .iter()
        .find(|argument| argument.name == name)
    else {
        return Value::Null;
    };
    match found.value.as_ref() {
        ast::Value::Int(value) => value.try_to_i32().map_or(Value::Null, |n| json!(n)),
        ast::Value::Variable(variable) => variables[variable.as_str()].clone(),
        ast::Value::Boolean(value) => json!(value),
        _ => Value::Null,
    }
}

/// `@include(if:)` and `@skip(if:)`, which leave a field out before it is counted.
fn included(directives: &ast::DirectiveList, variables: &Value) -> bool {
    let value = |name: &str| {
        directives.get(name).and_then(|directive| {
            directive
                .specified_argument_by_name("if")
                .map(|value| match value.as_ref() {
                    ast::Value::Boolean(value) => *value,
                    ast::Value::Variable(variable) => variables[variable.as_str()] == json!(true),
                    _ => false,
                })
        })
    };
    value("include").unwrap_or(true) && !value("skip").unwrap_or(false)
}

fn asks_nodes(set: &SelectionSet, document: &ExecutableDocument) -> bool {
    set.selections.iter().any(|selection| match selection {
        Selection::Field(field) => field.name == "nodes" || field.name == "edges",
        Selection::FragmentSpread(spread) => document
            .fragments
            .get(&spread.fragment_name)
            .is_some_and(|fragment| asks_nodes(&fragment.selection_set, document)),
        Selection::InlineFragment(inline) => asks_nodes(&inline.selection_set, document),
    })
}

fn walk(
    document: &ExecutableDocument,
    set: &SelectionSet,
    around: u64,
    variables: &Value,
    limits: &mut Limits,
) {
    for selection in &set.selections {
        match selection {
            Selection::Field(field) => {
                if !included(&field.directives, variables) {
                    continue;
                }
                let connection = field
                    .definition
                    .ty
                    .inner_named_type()
                    .as_str()
                    .ends_with("Connection");
                if !connection {
                    walk(document, &field.selection_set, around, variables, limits);
                    continue;
                }
                let first = argument(field, "first", variables).as_i64();
                let last = argument(field, "last", variables).as_i64();
                let size = match (first, last) {
                    (None, None) => {
                        if asks_nodes(&field.selection_set, document) {
                            limits.errors.push(json!({
                                "type": "MISSING_PAGINATION_BOUNDARIES",
                                "path": [field.response_key().as_str()],
                                "message": format!("You must provide a `first` or `last` value to properly paginate the `{}` connection.", field.name),
                            }));
                        }
                        walk(document, &field.selection_set, around, variables, limits);
                        continue;
                    }
                    (Some(n), _) | (None, Some(n)) => n,
                };
                let bound = if first.is_some() { "first" } else { "last" };
                if !(1..=MAX_PAGE as i64).contains(&size) {
                    limits.errors.push(json!({
                        "type": "EXCESSIVE_PAGINATION",
                        "path": [field.response_key().as_str()],
                        "message": format!("Requesting {size} records on the `{}` connection exceeds the `{bound}` limit of {MAX_PAGE} records.", field.name),
                    }));
                    continue;
                }
                let size = size as u64;
                limits.requests += around;
                limits.nodes += around * size;
                walk(
                    document,
                    &field.selection_set,
                    around * size,
                    variables,
                    limits,
                );
            }
            Selection::FragmentSpread(spread) => {
                if let Some(fragment) = document.fragments.get(&spread.fragment_name) {
                    walk(document, &fragment.selection_set, around, variables, limits);
                }
            }
            Selection::InlineFragment(inline) => {
                if included(&inline.directives, variables) {
                    walk(document, &inline.selection_set, around, variables, limits);
                }
            }
        }
    }
}

/// `PullRequest.mergeStateStatus` (and `canBeRebased`) are schema-preview members: GitHub's
/// schema has them only for a request whose `Accept` names the preview's media type,
/// `application/vnd.github.merge-info-preview+json` ("Schema previews", Merge info preview).
/// Without it the field does not exist, and GitHub refuses the whole query at validation, with
/// HTTP 200, no `data`, and an `undefinedField` error whose `path` is the query document's,
/// as a recorded answer of GitHub Enterprise Server to a field its schema lacks shows
/// (refined-github/refined-github#6946: `path` from `query` down to the field, `extensions`
/// with `code`, `typeName` and `fieldName`, message "Field '…' doesn't exist on type '…'").
fn preview_refusal(body: &str, accept: &str) -> Option<Reply> {
    let request: Value = serde_json::from_str(body).ok()?;
    let query = request["query"].as_str()?;
    if !query.contains("mergeStateStatus") || accept.contains("merge-info-preview") {
        return None;
    }
    let operation = request["operationName"].as_str().unwrap_or("query");
    let refusal = json!({"errors": [{
        "path": [format!("query {operation}"), "mergeStateStatus"],
        "extensions": {"code": "undefinedField", "typeName": "PullRequest", "fieldName": "mergeStateStatus"},
        "locations": [{"line": 1, "column": 1}],
        "message": "Field 'mergeStateStatus' doesn't exist on type 'PullRequest'",
    }]});
    Some(reply(200, refusal))
}
