//! The recap as JSON: the serialized [`Recap`], the format other programs rely on (its fields
//! are defined and documented as stable in `policy::recap`).

use crate::policy::recap::Recap;

pub fn recap_json(recap: &Recap) -> String {
    serde_json::to_string(recap).unwrap_or_else(|_| "{}".to_string())
}
