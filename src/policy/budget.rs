//! The item-failure budget of seed 004: how many items of a pool may fail in the read phase
//! before the run stops. Pure: parsing and arithmetic only.

use std::fmt;
use std::str::FromStr;

/// `N`, `P%` of the pool (rounded down), or `max(N, P%)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureBudget {
    Count(u64),
    Percent(u8),
    Max(u64, u8),
}

impl Default for FailureBudget {
    /// Unset means `max(3, 10%)`.
    fn default() -> Self {
        FailureBudget::Max(3, 10)
    }
}

const FORMS: &str = "write `3`, `10%` or `max(3, 10%)`";

fn parse_count(text: &str) -> Option<u64> {
    if text.is_empty() || !text.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn parse_percent(text: &str) -> Option<u8> {
    let digits = text.strip_suffix('%')?;
    let value = parse_count(digits)?;
    (value <= 100).then_some(value as u8)
}

/// Why a text is not a failure budget; each says which text and lists the forms.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BudgetError {
    #[error("invalid item_failure_budget `{0}`: a percentage is a whole number from 0% to 100%, with no space; {forms}", forms = FORMS)]
    Percent(String),
    #[error("invalid item_failure_budget `{0}`: max() takes a count and a percentage; {forms}", forms = FORMS)]
    MaxValues(String),
    #[error("invalid item_failure_budget `{0}`: max() takes exactly two values; {forms}", forms = FORMS)]
    MaxArity(String),
    #[error("invalid item_failure_budget `{0}`: a budget cannot be negative; {forms}", forms = FORMS)]
    Negative(String),
    #[error("invalid item_failure_budget `{0}`: not a budget; {forms}", forms = FORMS)]
    NotABudget(String),
}

impl FromStr for FailureBudget {
    type Err = BudgetError;

    fn from_str(text: &str) -> Result<Self, BudgetError> {
        let invalid = |kind: fn(String) -> BudgetError| kind(text.to_string());
        if let Some(count) = parse_count(text) {
            return Ok(FailureBudget::Count(count));
        }
        if text.ends_with('%') {
            return parse_percent(text)
                .map(FailureBudget::Percent)
                .ok_or_else(|| invalid(BudgetError::Percent));
        }
        if let Some(inner) = text
            .strip_prefix("max(")
            .and_then(|rest| rest.strip_suffix(')'))
        {
            let mut parts = inner.split(',');
            return match (parts.next(), parts.next(), parts.next()) {
                (Some(count), Some(percent), None) => {
                    match (parse_count(count.trim()), parse_percent(percent.trim())) {
                        (Some(count), Some(percent)) => Ok(FailureBudget::Max(count, percent)),
                        _ => Err(invalid(BudgetError::MaxValues)),
                    }
                }
                _ => Err(invalid(BudgetError::MaxArity)),
            };
        }
        if text.starts_with('-') {
            return Err(invalid(BudgetError::Negative));
        }
        Err(invalid(BudgetError::NotABudget))
    }
}

impl FailureBudget {
    /// How many item failures a pool of `pool` items tolerates.
    pub fn allowed(self, pool: usize) -> u64 {
        let percent_of = |percent: u8| pool as u64 * u64::from(percent) / 100;
        match self {
            FailureBudget::Count(count) => count,
            FailureBudget::Percent(percent) => percent_of(percent),
            FailureBudget::Max(count, percent) => count.max(percent_of(percent)),
        }
    }

    /// True once `failures` is more than the pool tolerates: the run stops before the next item.
    pub fn exhausted(self, failures: u64, pool: usize) -> bool {
        failures > self.allowed(pool)
    }
}

impl fmt::Display for FailureBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureBudget::Count(count) => write!(f, "{count}"),
            FailureBudget::Percent(percent) => write!(f, "{percent}%"),
            FailureBudget::Max(count, percent) => write!(f, "max({count}, {percent}%)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_every_documented_form() {
        assert_eq!("3".parse(), Ok(FailureBudget::Count(3)));
        assert_eq!("0".parse(), Ok(FailureBudget::Count(0)));
        assert_eq!("10%".parse(), Ok(FailureBudget::Percent(10)));
        assert_eq!("max(3, 10%)".parse(), Ok(FailureBudget::Max(3, 10)));
        assert_eq!("max(3,10%)".parse(), Ok(FailureBudget::Max(3, 10)));
    }

    #[test]
    fn rejects_malformed_values_naming_them() {
        for bad in [
            "-1",
            "10 %",
            "max(3)",
            "150%",
            "abc",
            "",
            "max(3, 10)",
            "max(10%, 3)",
            "3.5",
            // Rust's integer parser takes a leading `+`; the documented forms do not.
            "+3",
            "max(+3, 10%)",
        ] {
            let error = bad.parse::<FailureBudget>().unwrap_err().to_string();
            assert!(error.contains(&format!("`{bad}`")), "{bad}: {error}");
        }
    }

    #[test]
    fn default_is_max_3_or_10_percent() {
        assert_eq!(FailureBudget::default().allowed(10), 3);
        assert_eq!(FailureBudget::default().allowed(200), 20);
        assert_eq!(FailureBudget::default().allowed(39), 3);
    }

    #[test]
    fn percent_rounds_down_and_zero_tolerates_nothing() {
        assert_eq!(FailureBudget::Percent(10).allowed(19), 1);
        assert!(FailureBudget::Count(0).exhausted(1, 100));
        assert!(!FailureBudget::Count(2).exhausted(2, 100));
        assert!(FailureBudget::Count(2).exhausted(3, 100));
    }

    proptest! {
        /// Whatever is typed, the answer is a budget that prints back as something that parses
        /// to it, or an error that names the value (seed 004: "an error naming the value").
        #[test]
        fn a_value_is_a_budget_or_an_error_naming_it(text in "[0-9max(), %-]{0,16}") {
            match text.parse::<FailureBudget>() {
                Ok(budget) => prop_assert_eq!(budget.to_string().parse::<FailureBudget>(), Ok(budget)),
                Err(error) => prop_assert!(
                    error.to_string().starts_with(&format!("invalid item_failure_budget `{text}`")),
                    "{}", error
                ),
            }
        }

        #[test]
        fn display_round_trips(count in 0u64..10_000, percent in 0u8..=100) {
            for budget in [FailureBudget::Count(count), FailureBudget::Percent(percent), FailureBudget::Max(count, percent)] {
                prop_assert_eq!(budget.to_string().parse::<FailureBudget>(), Ok(budget));
            }
        }

        #[test]
        fn allowed_is_monotone_in_pool(count in 0u64..100, percent in 0u8..=100, pool in 0usize..100_000) {
            for budget in [FailureBudget::Count(count), FailureBudget::Percent(percent), FailureBudget::Max(count, percent)] {
                prop_assert!(budget.allowed(pool) <= budget.allowed(pool + 1));
            }
        }
    }
}
