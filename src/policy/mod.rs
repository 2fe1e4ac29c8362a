//! Pure decisions over plain data. Nothing in here touches the network, the database or the
//! terminal; the engine gathers the facts and carries out what these return.

pub(crate) mod backoff;
pub mod budget;
pub(crate) mod disposition;
pub(crate) mod lease;
pub(crate) mod merge;
pub(crate) mod pacing;
pub mod recap;
pub(crate) mod recheck;
mod rule_error;
pub mod selector;
pub(crate) mod stale;
pub(crate) mod sweep;
pub mod write;

pub use rule_error::RuleError;

/// `1 what` or `N whats`: a count in words, as people write it ("1 item", "2 items").
pub fn count(count: impl Into<u64>, what: &str) -> String {
    match count.into() {
        1 => format!("1 {what}"),
        count => format!("{count} {what}s"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_of_a_thing_is_singular() {
        assert_eq!(super::count(1u64, "item"), "1 item");
        assert_eq!(super::count(0u64, "item"), "0 items");
        assert_eq!(super::count(2u64, "day"), "2 days");
    }
}
