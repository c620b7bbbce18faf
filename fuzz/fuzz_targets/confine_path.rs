//! Path confinement never panics, and no accepted path can escape the
//! working tree or name git's directory.
#![no_main]

use git_evolv::git::worktree::confine;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Paths are bytes (#16 item 7): any byte string is a candidate.
    if confine::refusal(data).is_none() {
        assert!(!data.starts_with(b"/"));
        for part in data.split(|&b| b == b'/') {
            assert!(!part.is_empty() && part != b"." && part != b"..");
            let end = part
                .iter()
                .rposition(|&b| b != b'.' && b != b' ')
                .map_or(0, |i| i + 1);
            let lower = part[..end].to_ascii_lowercase();
            assert!(lower != b".git" && lower != b"git~1", "{data:?}");
        }
    }
});
