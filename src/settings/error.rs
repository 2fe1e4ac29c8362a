//! What can be wrong with the settings, by concern. Each message names the bad value (the
//! flag, variable or key it came from, and what it held) and the fix; a settings error ends
//! the command before anything is read, as a usage error (exit 2), except a missing or
//! unusable token (exit 4).

use crate::exit::ExpectedError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// A flag, variable or key holding a value the setting does not take:
    /// `invalid NAME `VALUE`: FIX`.
    #[error("invalid {name} `{value}`: {fix}")]
    Value {
        name: String,
        value: String,
        fix: String,
    },
    /// A numeric key of the config file outside its documented range.
    #[error("invalid {key} = {value}: use {unit} from {low} to {high}")]
    OutOfRange {
        key: &'static str,
        value: u64,
        unit: &'static str,
        low: u64,
        high: u64,
    },
    /// The config file: not where it was named, unreadable, not TOML, an unknown key, a value
    /// of the wrong type, or rules that do not hold together.
    #[error("{0}")]
    Config(String),
    /// actions/stale's inputs (a workflow's step or the action's own).
    #[error("{0}")]
    StaleInputs(String),
    /// A limit on writes or waits that cannot work (`--max-writes 0`, a wait shorter than the
    /// write interval).
    #[error("{0}")]
    Limit(String),
    /// The pool: `--repo`, `--only`, `--org`, the snapshot, the clone's default repository.
    #[error("{0}")]
    Pool(String),
    /// Where the store or an output file would go.
    #[error("{0}")]
    Place(String),
    /// A run that cannot go on as asked: writing without a terminal to confirm on, a clock
    /// of one's choosing on a run that writes.
    #[error("{0}")]
    Refused(String),
    /// No token for the API's host, or one that cannot be a token.
    #[error("{0}")]
    Token(String),
}

impl SettingsError {
    /// `invalid NAME `VALUE`: FIX`.
    pub fn value(
        name: impl Into<String>,
        value: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        SettingsError::Value {
            name: name.into(),
            value: value.into(),
            fix: fix.into(),
        }
    }
}

/// A settings error ends the command with the code its kind calls for: exit 4 for the token,
/// else exit 2.
impl From<SettingsError> for ExpectedError {
    fn from(error: SettingsError) -> Self {
        match error {
            SettingsError::Token(message) => ExpectedError::Auth(message),
            other => ExpectedError::Usage(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_error_exits_4_and_every_other_2() {
        let code = |error: SettingsError| crate::exit::of_error(&ExpectedError::from(error).into());
        assert_eq!(
            code(SettingsError::Token("no token".into())),
            crate::exit::AUTH
        );
        assert_eq!(
            code(SettingsError::Pool("no repo".into())),
            crate::exit::USAGE
        );
        assert_eq!(
            SettingsError::value("--now", "soon", "use an RFC 3339 time").to_string(),
            "invalid --now `soon`: use an RFC 3339 time"
        );
    }
}
