//! git-evolv's index reader never panics on any bytes (a torn or foreign
//! index is an error), and whatever it reads it writes back so that it
//! reads the same again.
#![no_main]

use git_evolv::git::formats::index::IndexFile;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(index) = IndexFile::parse(data) {
        let bytes = index.serialize();
        assert_eq!(IndexFile::parse(&bytes).as_ref(), Ok(&index));
    }
});
