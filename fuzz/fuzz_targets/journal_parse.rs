//! The landing journal reader never panics, whatever is on disk (a torn or
//! hand-edited journal is an error, never a crash), and accepts only paths
//! git-evolv may write.
#![no_main]

use git_evolv::git::worktree::confine;
use git_evolv::landing::journal;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(j) = journal::parse(data) {
        for change in &j.changes {
            assert!(confine::refusal(&change.path).is_none());
        }
        // Whatever parsed writes back and parses to the same journal.
        let again = serde_json::to_vec(&j).unwrap();
        assert_eq!(journal::parse(&again).unwrap(), j);
    }
});
