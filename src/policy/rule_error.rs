//! What is wrong with a table of the config file, naming the key and the value.

/// A config value the rules cannot take: the table, the key, the value, and what to use.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// `invalid [stale] sort_by = "size": use ...`; `value` is as the file spells it.
    #[error("invalid [{table}] {key} = {value}: {fix}")]
    Value {
        table: &'static str,
        key: &'static str,
        value: String,
        fix: String,
    },
    /// A key whose value is too long to quote or is one entry of a list.
    #[error("invalid [{table}] {key}: {why}")]
    Key {
        table: &'static str,
        key: String,
        why: String,
    },
}

impl RuleError {
    pub fn value(
        table: &'static str,
        key: &'static str,
        value: impl std::fmt::Display,
        fix: impl Into<String>,
    ) -> RuleError {
        RuleError::Value {
            table,
            key,
            value: value.to_string(),
            fix: fix.into(),
        }
    }

    pub fn key(table: &'static str, key: impl Into<String>, why: impl Into<String>) -> RuleError {
        RuleError::Key {
            table,
            key: key.into(),
            why: why.into(),
        }
    }
}
