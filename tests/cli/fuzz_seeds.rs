//! The fuzz targets' seed corpora, replayed on stable Rust through the very
//! entry functions the cargo-fuzz targets call, so CI exercises them even
//! where cargo-fuzz is not installed (#13 item 8). A crash the fuzzer finds
//! becomes a seed (`fuzz/seeds/<target>/`) and so a regression test here.

use std::path::{Path, PathBuf};

#[path = "../../fuzz/entries/edit_list.rs"]
mod edit_list;

/// Every file of `fuzz/seeds/<target>`, sorted.
fn seeds(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn the_edit_list_seeds_run_through_the_fuzz_entry_without_a_panic() {
    let files = seeds("edit_list");
    assert!(files.len() >= 10, "a seed per edit kind: {files:?}");
    let mut engine_runs = 0;
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let run = std::panic::catch_unwind(|| edit_list::run(&data));
        assert!(run.is_ok(), "{} panics the edit engine", path.display());
        engine_runs += usize::from(run.unwrap());
        // Every prefix too: truncated JSON and notebooks are the commonest
        // malformed input (cheap: the seeds are small).
        for cut in (0..data.len()).step_by(7) {
            let run = std::panic::catch_unwind(|| edit_list::run(&data[..cut]));
            assert!(run.is_ok(), "{} cut at {cut} panics", path.display());
        }
    }
    // Most seeds are valid lists or notebooks: the engine itself runs,
    // not only the parser's refusals.
    assert!(
        engine_runs >= 12,
        "{engine_runs} of {} reach the engine",
        files.len()
    );
}
