//! The config loader: any text gives settings or an error naming the problem, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = gh_sweep::settings::check_config_text(text);
    }
});
