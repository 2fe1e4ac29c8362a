//! GitHub's published GraphQL schema, pinned: the npm package GitHub's own Octokit publishes
//! (`@octokit/graphql-schema`), vendored in `tests/schema/`. The library's schema test and the
//! fake GitHub's GraphQL executor both read it from here, so the client's documents and the
//! fake's answers are judged by the same schema.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use apollo_compiler::validation::Valid;
use apollo_compiler::Schema;

pub const SCHEMA_PACKAGE: &str = "@octokit/graphql-schema";
pub const SCHEMA_VERSION: &str = "15.26.1";

/// The pinned schema, vendored under `tests/schema/` with its licence (see the README there):
/// `cargo test` needs no registry.
pub fn schema_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schema/github.graphql")
}

/// The schema, parsed and validated once per process.
pub fn schema() -> &'static Valid<Schema> {
    static SCHEMA: OnceLock<Valid<Schema>> = OnceLock::new();
    SCHEMA.get_or_init(load)
}

fn load() -> Valid<Schema> {
    let path = schema_path();
    let text = std::fs::read_to_string(&path).unwrap();
    // GitHub's published schema defines a few fields twice (`EnterpriseOwnerInfo`'s deploy key
    // settings in 15.26.1): those alone are let through, as the first definition; any other
    // flaw fails the test.
    let schema = match Schema::parse_and_validate(text, &path) {
        Ok(schema) => return schema,
        Err(with_errors) => with_errors,
    };
    let flaws: Vec<String> = schema
        .errors
        .iter()
        .map(|error| error.to_string())
        .filter(|error| !error.contains("duplicate definitions for the"))
        .collect();
    assert!(
        flaws.is_empty(),
        "GitHub's schema ({SCHEMA_PACKAGE} {SCHEMA_VERSION}) does not validate: {flaws:?}"
    );
    Valid::assume_valid(schema.partial)
}
