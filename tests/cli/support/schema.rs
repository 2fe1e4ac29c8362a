//! GitHub's published GraphQL schema, pinned: the npm package GitHub's own Octokit publishes
//! (`@octokit/graphql-schema`). The library's schema test and the fake GitHub's GraphQL
//! executor both read it from here, so the client's documents and the fake's answers are
//! judged by the same schema.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use apollo_compiler::validation::Valid;
use apollo_compiler::Schema;

pub const SCHEMA_PACKAGE: &str = "@octokit/graphql-schema";
pub const SCHEMA_VERSION: &str = "15.26.1";

/// Installs the pinned schema package into the target directory once; later runs find it.
/// Tests run in parallel: the first to ask installs, the others wait for it, so none reads a
/// package half written.
pub fn schema_path() -> PathBuf {
    static INSTALLED: OnceLock<PathBuf> = OnceLock::new();
    INSTALLED.get_or_init(install_schema).clone()
}

fn install_schema() -> PathBuf {
    let prefix = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/graphql-schema");
    let package = prefix.join("node_modules").join(SCHEMA_PACKAGE);
    let installed = std::fs::read_to_string(package.join("package.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|json| json["version"].as_str().map(str::to_string));
    if installed.as_deref() != Some(SCHEMA_VERSION) {
        std::fs::create_dir_all(&prefix).unwrap();
        let status = Command::new("npm")
            .arg("install")
            .arg("--prefix")
            .arg(&prefix)
            .args(["--no-audit", "--no-fund", "--no-save"])
            .arg(format!("{SCHEMA_PACKAGE}@{SCHEMA_VERSION}"))
            .status()
            .expect("npm is needed to install GitHub's GraphQL schema");
        assert!(status.success(), "npm install {SCHEMA_PACKAGE} failed");
    }
    package.join("schema.graphql")
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
        "GitHub's schema does not validate: {flaws:?}"
    );
    Valid::assume_valid(schema.partial)
}
