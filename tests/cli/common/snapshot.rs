//! Snapshots of human output: where they live and what is redacted.

use std::path::Path;

use super::{BIN, TestRepo};

/// Snapshot settings for the human output of commands run in `repo`: the
/// snapshots live in `tests/cli/snapshots/`, and what still varies between
/// runs (the temporary directories, hashes, durations, and patch ids when
/// the test clock is not on) is redacted.
pub fn snapshot_settings(repo: &TestRepo) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("snapshots");
    s.set_prepend_module_to_snapshot(false);
    let path = regex_escape(&repo.path().display().to_string());
    let home = regex_escape(&repo.home().display().to_string());
    s.add_filter(&path, "[REPO]");
    s.add_filter(&home, "[HOME]");
    if let Some(bin_dir) = Path::new(BIN).parent() {
        s.add_filter(&regex_escape(&bin_dir.display().to_string()), "[BIN]");
    }
    // Other scratch folders (a bare remote, a clone): tempfile's names.
    s.add_filter(r#"/[^\s'"]*/\.tmp[A-Za-z0-9]{6}"#, "[TMP]");
    s.add_filter(r"\b[0-9a-f]{64}\b", "[HASH]");
    s.add_filter(r"\b[0-9a-f]{40}\b", "[HASH]");
    s.add_filter(r"\b[0-9a-f]{7,12}\b", "[SHORT]");
    s.add_filter(r"patch_(\d+)_[0-9a-f]{8,40}", "patch_${1}_[ID]");
    if repo.minute.get().is_none() {
        s.add_filter(r"patch_\d+_\[ID\]", "patch_[ID]");
    }
    s.add_filter(r"\b\d+ ms\b", "[N] ms");
    // Where a cached verdict was made: this machine's user and host name.
    s.add_filter(
        r"made \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ by [^\s@]+@[^\s)]+",
        "made [TIME] by [USER@HOST]",
    );
    s.add_filter(r"pending/\d+-\d+-\d+\.json", "pending/[RECORD].json");
    s
}

/// Pins `text`, the human output of commands run in `repo`, as the
/// snapshot `name` in `tests/cli/snapshots/` (see [`snapshot_settings`]).
macro_rules! assert_human {
    ($repo:expr, $name:expr, $text:expr) => {{
        let text: String = $text;
        $crate::common::snapshot_settings(&$repo).bind(|| insta::assert_snapshot!($name, text));
    }};
}
pub(crate) use assert_human;

fn regex_escape(s: &str) -> String {
    s.chars()
        .map(|c| {
            if "\\.+*?()|[]{}^$".contains(c) {
                format!("\\{c}")
            } else {
                c.to_string()
            }
        })
        .collect()
}
