//! The `--only` selector: parsing never panics, and what parses prints back to the same set.
#![no_main]

use gh_sweep::item::RepoRef;
use gh_sweep::policy::selector;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let default: RepoRef = "o/r".parse().expect("a valid repository");
    if let Ok(items) = selector::parse(text, Some(&default)) {
        if !items.is_empty() {
            let printed = selector::format(&items);
            assert_eq!(selector::parse(&printed, None).expect("what format prints parses"), items);
        }
    }
});
