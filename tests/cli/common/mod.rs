//! Test harness: real repositories in temp dirs, the real binary, real git,
//! and an environment sealed off from the machine's own git config.
//!
//! [`TestRepo`] builds a repository and reads its state back (HEAD, refs,
//! status, worktrees, fsck); its `evolv*` methods run the binary in it,
//! each giving a [`Run`]; [`assert_human!`] pins human output as a
//! snapshot.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

mod evolv;
mod repo;
mod run;
mod snapshot;

pub use repo::TestRepo;
pub use run::Run;
pub(crate) use snapshot::assert_human;
pub use snapshot::snapshot_settings;

pub const BIN: &str = env!("CARGO_BIN_EXE_git-evolv");

/// What a helper's `try_` variant fails with.
pub type Error = Box<dyn std::error::Error>;

/// What a test returns when it uses `?` rather than unwrapping each line.
pub type TestResult = Result<(), Error>;

/// A command with the sealed environment.
pub fn sealed(program: &str, home: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
        .env("TZ", "UTC")
        .env("LC_ALL", "C")
        .env("GIT_EDITOR", ":")
        .env("TMPDIR", home);
    cmd
}

/// The entry of proposal `id` in a `list` answer (`{"proposals": […]}`).
#[track_caller]
pub fn listed<'a>(list: &'a Value, id: &str) -> &'a Value {
    list["proposals"]
        .as_array()
        .expect("a list of proposals")
        .iter()
        .find(|p| p["patch_id"] == id)
        .unwrap_or_else(|| panic!("{id} is not listed: {list}"))
}

/// Asserts that `haystack` contains `needle`, showing the haystack if not.
#[track_caller]
pub fn assert_has(haystack: &str, needle: &str) {
    assert!(
        haystack.contains(needle),
        "wanted {needle:?} in:\n{haystack}"
    );
}

/// Asserts that `haystack` contains each of `needles`.
#[track_caller]
pub fn assert_has_all(haystack: &str, needles: &[&str]) {
    for needle in needles {
        assert_has(haystack, needle);
    }
}

/// Asserts that `haystack` does not contain `needle`.
#[track_caller]
pub fn assert_lacks(haystack: &str, needle: &str) {
    assert!(
        !haystack.contains(needle),
        "did not want {needle:?} in:\n{haystack}"
    );
}

/// Asserts the numbers of a propose's `statistics`, given as
/// `"files_scanned=3 files_matched=2"`.
#[track_caller]
pub fn assert_statistics(propose: &Value, counts: &str) {
    for pair in counts.split_whitespace() {
        let (name, count) = pair.split_once('=').expect("name=count");
        let got = propose["statistics"][name].as_u64().map(|n| n.to_string());
        assert_eq!(
            got.as_deref(),
            Some(count),
            "{name}: {}",
            propose["statistics"]
        );
    }
}

/// The JSON string `v`; panics when it is not one.
#[track_caller]
pub fn str_of(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

/// The strings at `field` of each object of the array `list`.
#[track_caller]
pub fn strings_of<'a>(list: &'a Value, field: &str) -> Vec<&'a str> {
    list.as_array()
        .unwrap_or_else(|| panic!("not an array: {list}"))
        .iter()
        .map(|item| {
            item[field]
                .as_str()
                .unwrap_or_else(|| panic!("no string {field} in {item}"))
        })
        .collect()
}

/// Runs `cmd` with `stdin` fed in.
pub fn run_with_stdin(cmd: Command, stdin: impl AsRef<[u8]>) -> Run {
    try_run_with_stdin(cmd, stdin).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `cmd` with `stdin` fed in.
pub fn try_run_with_stdin(mut cmd: Command, stdin: impl AsRef<[u8]>) -> Result<Run, Error> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(stdin.as_ref())?;
    Ok(Run::from(child.wait_with_output()?))
}

/// The error code of a failed `--json` run, after checking the shape.
#[track_caller]
pub fn error_code(run: &Run) -> String {
    let v = run.json();
    assert_eq!(v["success"], Value::Bool(false), "{v}");
    assert!(
        v["error"]["message"].is_string() && v["error"]["hint"].is_string(),
        "{v}"
    );
    v["error"]["code"].as_str().unwrap().to_string()
}
