//! `item_failure_budget`: parsing never panics, what parses prints back to itself, and the
//! allowance never shrinks as the pool grows.
#![no_main]

use gh_sweep::policy::budget::FailureBudget;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(budget) = text.parse::<FailureBudget>() {
        assert_eq!(budget.to_string().parse::<FailureBudget>(), Ok(budget));
        let pool = data.len() * 97;
        assert!(budget.allowed(pool) <= budget.allowed(pool + 1));
    }
});
