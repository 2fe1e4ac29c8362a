//! The environment variables gh-sweep reads, captured once in `main`: nothing else reads the
//! process environment.

use std::collections::BTreeMap;

/// The environment variables gh-sweep reads, captured once in `main`.
#[derive(Default, Clone)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

/// Names only: some values are secrets (tokens, `PGPASSWORD`).
impl std::fmt::Debug for Env {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_set().entries(self.vars.keys()).finish()
    }
}

const ENV_NAMES: &[&str] = &[
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
    "GITHUB_API_URL",
    "GH_HOST",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "HOME",
    "PATH",
    "CI",
    "GH_SWEEP_SWEEP_ENABLED",
    // The PostgreSQL store: libpq's variables for the password and a private CA, and the name
    // this host goes by among those sharing the database (else its hostname).
    "PGPASSWORD",
    "PGPASSFILE",
    "PGSSLROOTCERT",
    "GH_SWEEP_HOST",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_OUTPUT",
    // The pager a tall plan goes through, as gh's.
    "GH_SWEEP_PAGER",
    "PAGER",
    // Read by clap for the flags they stand for (`Sources` says when clap took one); captured
    // too, for `recap` to say where its store came from.
    "GH_SWEEP_ITEM_FAILURE_BUDGET",
    "GH_SWEEP_CONFIG",
    "GH_SWEEP_DB",
    "GH_SWEEP_TEST_NOW",
    "GH_SWEEP_TEST_CLOCK_SKEW",
];

impl Env {
    pub fn capture() -> Self {
        let vars: BTreeMap<String, String> = ENV_NAMES
            .iter()
            .filter_map(|name| {
                std::env::var(name)
                    .ok()
                    .map(|value| (name.to_string(), value))
            })
            .collect();
        // The action's step passes actions/stale's inputs in `GH_SWEEP_INPUT_*` variables.
        let inputs = std::env::vars().filter(|(name, _)| name.starts_with("GH_SWEEP_INPUT_"));
        let mut vars = vars;
        vars.extend(inputs);
        Env { vars }
    }

    /// A variable as it is set, an empty value included (an action input given as `''`).
    pub fn raw(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    #[cfg(test)]
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Self {
        Env {
            vars: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .get(name)
            .map(String::as_str)
            .filter(|value| !value.trim().is_empty())
    }
}
