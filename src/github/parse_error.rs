//! The error of reading GitHub's JSON (REST and GraphQL) into plain facts.

/// What in GitHub's JSON did not parse: the field, and the value when it has one, and where
/// (`in a check run: ...`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ParseError {
    #[error("the `{field}` field is missing")]
    Missing { field: String },
    /// The field is there but of another JSON type; `expected` is "a string", "a list", ...
    #[error("the `{field}` field is not {expected}")]
    NotA {
        field: String,
        expected: &'static str,
    },
    #[error("the `{field}` timestamp `{value}` does not parse")]
    Timestamp { field: String, value: String },
    #[error("an entry is {entry}, not a label")]
    NotALabel { entry: String },
    /// GraphQL: an enum field without a value.
    #[error("no `{field}`")]
    NoValue { field: String },
    /// GraphQL: a list answered `null` (or with `nodes: null`) and no error.
    #[error(
        "GitHub answered `{field}` with `nodes: null` and no error: the list is unknown, not empty"
    )]
    NullNodes { field: String },
    #[error("GitHub answered `{field}: null` and no error: the list is unknown, not empty")]
    NullList { field: String },
    /// GraphQL: a rollup context that is neither a check run nor a commit status.
    #[error("a rollup context of an unknown kind ({typename:?})")]
    UnknownContext { typename: Option<String> },
    #[error("in {place}: {inner}")]
    In {
        place: String,
        inner: Box<ParseError>,
    },
}

impl ParseError {
    pub(crate) fn missing(field: &str) -> ParseError {
        ParseError::Missing {
            field: field.to_string(),
        }
    }

    pub(crate) fn not_a(field: &str, expected: &'static str) -> ParseError {
        ParseError::NotA {
            field: field.to_string(),
            expected,
        }
    }

    /// This error, found inside `place` ("a check run", "`labels`").
    pub(crate) fn within(self, place: &str) -> ParseError {
        ParseError::In {
            place: place.to_string(),
            inner: Box::new(self),
        }
    }
}
