//! cargo-fuzz target: the edit-list parser and the edit engine, notebook
//! editor included (see `entries/edit_list.rs`, which the stable seed
//! replay test runs too).
#![no_main]

#[path = "../entries/edit_list.rs"]
mod entry;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    entry::run(data);
});
