//! Path confinement never panics, and no accepted path can escape the
//! working tree or name git's directory.
#![no_main]

use git_evolv::git::confine;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = String::from_utf8_lossy(data);
    if confine::refusal(&path).is_none() {
        assert!(!path.starts_with('/'));
        for part in path.split('/') {
            assert!(!part.is_empty() && part != "." && part != "..");
            let lower = part.trim_end_matches(['.', ' ']).to_ascii_lowercase();
            assert!(lower != ".git" && lower != "git~1", "{path:?}");
        }
    }
});
