//! Every shell block of the README runs today (issue 42 requirement 1).
//!
//! Each fenced ```sh / ```bash / ```shell block of README.md is run with
//! `bash -e -o pipefail` in a fresh directory of its own, as on a fresh
//! machine: an empty HOME whose `.gitconfig` holds only a name, an email
//! and `init.defaultBranch` (what any git user has), and a fresh prefix
//! whose `bin/` holds this build's `git-evolv` and `git-evolv-hook` first
//! on PATH, so `git evolv` is this build, as after `cargo install`.
//!
//! A block is skipped only when the line right before it is a marker
//! (docs/development.md, "README blocks"):
//! `<!-- needs-release -->` (crates.io, binstall, the release archives:
//! nothing to run until a release exists) or `<!-- not-run: REASON -->`,
//! whose reason is required.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::BIN;

/// What a block may take before it counts as failed (the demo takes
/// about a second; a hung command must not hang the suite).
const BLOCK_LIMIT: Duration = Duration::from_secs(120);

/// Why a block is not run.
#[derive(Debug, PartialEq)]
enum Skip {
    NeedsRelease,
    NotRun(String),
}

/// One fenced shell block: its first line's number (1-based), the marker
/// before it, and its text.
#[derive(Debug)]
struct Block {
    line: usize,
    skip: Option<Skip>,
    text: String,
}

fn is_shell(lang: &str) -> bool {
    matches!(lang.trim(), "sh" | "bash" | "shell")
}

/// The marker a line holds, if any; `Err` for a malformed one, so a typo
/// cannot silently run (or silently skip) a block.
fn marker(line: &str) -> Result<Option<Skip>, String> {
    let line = line.trim();
    let Some(inner) = line
        .strip_prefix("<!--")
        .and_then(|l| l.strip_suffix("-->"))
    else {
        return Ok(None);
    };
    let inner = inner.trim();
    if inner == "needs-release" {
        return Ok(Some(Skip::NeedsRelease));
    }
    if let Some(reason) = inner.strip_prefix("not-run:") {
        let reason = reason.trim();
        if reason.is_empty() {
            return Err(format!("{line}: a not-run marker needs a reason"));
        }
        return Ok(Some(Skip::NotRun(reason.to_string())));
    }
    if inner.starts_with("not-run") || inner.starts_with("needs-") {
        return Err(format!(
            "{line}: write <!-- needs-release --> or <!-- not-run: REASON -->"
        ));
    }
    Ok(None)
}

/// The shell blocks of a Markdown text, each with the marker on the last
/// non-blank line before its fence.
fn blocks(markdown: &str) -> Result<Vec<Block>, String> {
    let mut out = Vec::new();
    let mut previous = "";
    let mut lines = markdown.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let Some(lang) = line.strip_prefix("```") else {
            if !line.trim().is_empty() {
                previous = line;
            }
            continue;
        };
        let body: Vec<&str> = lines
            .by_ref()
            .map(|(_, l)| l)
            .take_while(|l| !l.starts_with("```"))
            .collect();
        if is_shell(lang) {
            let skip = marker(previous).map_err(|e| format!("README.md line {n}: {e}"))?;
            out.push(Block {
                line: n + 1,
                skip,
                text: body.join("\n"),
            });
        }
        previous = "```";
    }
    Ok(out)
}

/// A fresh machine: HOME, a prefix whose `bin/` holds this build's two
/// binaries, and an empty working directory.
struct Machine {
    root: tempfile::TempDir,
}

impl Machine {
    fn new() -> Self {
        let root = tempfile::tempdir().expect("a temp dir");
        let bin = root.path().join("prefix/bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(root.path().join("home")).unwrap();
        std::fs::create_dir_all(root.path().join("work")).unwrap();
        let built = Path::new(BIN).parent().expect("the binaries' folder");
        for name in ["git-evolv", "git-evolv-hook"] {
            // A hard link writes nothing; a copy where the link fails.
            if std::fs::hard_link(built.join(name), bin.join(name)).is_err() {
                std::fs::copy(built.join(name), bin.join(name)).unwrap();
            }
        }
        std::fs::write(
            root.path().join("home/.gitconfig"),
            "[user]\n\tname = Reader\n\temail = reader@example.com\n[init]\n\tdefaultBranch = main\n",
        )
        .unwrap();
        Machine { root }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    /// `bash -e -o pipefail -c TEXT` in `work/`; `Err` names what failed.
    fn run(&self, text: &str) -> Result<(), String> {
        let path = std::env::join_paths(std::iter::once(self.path("prefix/bin")).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))
        .unwrap();
        let mut child = Command::new("bash")
            .args(["-e", "-o", "pipefail", "-c", text])
            .current_dir(self.path("work"))
            .env_clear()
            .env("PATH", path)
            .env("HOME", self.path("home"))
            .env("TMPDIR", self.root.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("LC_ALL", "C")
            .env("TZ", "UTC")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("could not start bash: {e}"))?;
        // Drain both pipes on threads, so a chatty block cannot block on a
        // full pipe while we wait.
        let mut out = child.stdout.take().unwrap();
        let mut err = child.stderr.take().unwrap();
        let out = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = out.read_to_string(&mut s);
            s
        });
        let err = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
                break Some(status);
            }
            if start.elapsed() > BLOCK_LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let (out, err) = (out.join().unwrap(), err.join().unwrap());
        match status {
            Some(s) if s.success() => Ok(()),
            Some(s) => Err(format!("{s}\n--- stdout ---\n{out}\n--- stderr ---\n{err}")),
            None => Err(format!(
                "still running after {BLOCK_LIMIT:?}, killed\n--- stdout ---\n{out}\n--- stderr ---\n{err}"
            )),
        }
    }
}

/// Runs every unmarked block, each on a fresh machine; the failures, each
/// naming its block, or the number of blocks run.
fn run_all(markdown: &str) -> Result<usize, String> {
    let mut failures = Vec::new();
    let mut ran = 0;
    for block in blocks(markdown)? {
        match &block.skip {
            // Skipped: the marker in README.md says why.
            Some(Skip::NeedsRelease | Skip::NotRun(_)) => continue,
            None => {}
        }
        ran += 1;
        if let Err(e) = Machine::new().run(&block.text) {
            failures.push(format!(
                "README.md, the block at line {}:\n{}\nfailed: {e}",
                block.line, block.text
            ));
        }
    }
    if failures.is_empty() {
        Ok(ran)
    } else {
        Err(failures.join("\n\n"))
    }
}

#[test]
fn every_shell_block_of_the_readme_runs_on_a_fresh_machine() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    match run_all(&readme) {
        Ok(ran) => assert!(
            ran >= 3,
            "only {ran} README block(s) ran: the markers skip too much"
        ),
        Err(failures) => panic!("{failures}"),
    }
}

#[test]
fn only_the_readmes_install_and_test_suite_blocks_are_left_out() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let all = blocks(&readme).unwrap();
    for block in all.iter().filter(|b| b.skip.is_some()) {
        let t = &block.text;
        let allowed = t.contains("cargo install")
            || t.contains("cargo binstall")
            || t.contains("cargo test")
            || t.contains(".tar.gz");
        assert!(
            allowed,
            "README.md line {}: only install, release and test-suite blocks may be skipped:\n{t}",
            block.line
        );
    }
    // The two fresh-machine commands stay (`.ci/run` runs the second).
    assert!(
        all.iter()
            .any(|b| b.text.contains("cargo install --locked --path ."))
    );
    assert!(all.iter().any(|b| b.text.contains("cargo test --locked")));
}

#[test]
fn a_failing_block_fails_the_run_naming_its_line() {
    let text = "# t\n\n```sh\ntrue\n```\n\n```sh\ngit evolv list\nfalse\necho never\n```\n";
    let err = run_all(text).expect_err("a block that fails");
    assert!(err.contains("the block at line 7"), "{err}");
    assert!(err.contains("git evolv list\nfalse"), "{err}");
}

#[test]
fn markers_skip_a_block_and_a_reasonless_one_is_refused() {
    let text = "<!-- needs-release -->\n```sh\nfalse\n```\n<!-- not-run: too slow -->\n```bash\nfalse\n```\n```json\n{}\n```\n```sh\ntest -n \"$(git evolv --version)\"\n```\n";
    assert_eq!(run_all(text), Ok(1));
    let found = blocks(text).unwrap();
    assert_eq!(found[1].skip, Some(Skip::NotRun("too slow".into())));
    let bad = "<!-- not-run: -->\n```sh\nfalse\n```\n";
    assert!(blocks(bad).unwrap_err().contains("needs a reason"));
}

/// The pages a newcomer reads first, whose links must all resolve.
const LINKED_PAGES: &[&str] = &[
    "README.md",
    "docs/tutorial.md",
    "docs/development.md",
    "docs/ci.md",
    "BENCHMARKS.md",
    "RELIABILITY.md",
];

/// GitHub's anchor of a heading: lower case, punctuation other than `-`
/// and `_` dropped, each space a `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (outside code fences).
fn anchors(markdown: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.push(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// The relative link targets of a Markdown text, outside code fences.
fn links(markdown: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for part in line.split("](").skip(1) {
            let target = part.split(')').next().unwrap_or("").trim();
            let external = ["http://", "https://", "mailto:"]
                .iter()
                .any(|p| target.starts_with(p));
            if !external && !target.is_empty() {
                out.push(target.to_string());
            }
        }
    }
    out
}

#[test]
fn every_link_of_the_readme_and_the_reference_pages_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut broken = Vec::new();
    for page in LINKED_PAGES {
        let text =
            std::fs::read_to_string(root.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        let dir = root.join(page).parent().unwrap().to_path_buf();
        for link in links(&text) {
            let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                root.join(page)
            } else {
                dir.join(file)
            };
            if !target.exists() {
                broken.push(format!("{page}: {link}: no such file"));
                continue;
            }
            if anchor.is_empty() || target.is_dir() {
                continue;
            }
            let body = std::fs::read_to_string(&target).unwrap_or_default();
            if !anchors(&body).iter().any(|a| a == anchor) {
                broken.push(format!("{page}: {link}: no heading with that anchor"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn a_broken_link_or_anchor_is_found() {
    assert_eq!(
        slug(" Big and real repositories (`scripts/bench_big.sh`, issue 25) — targets met"),
        "big-and-real-repositories-scriptsbench_bigsh-issue-25--targets-met"
    );
    let text = "see [a](docs/x.md#two) and [b](https://e.org)\n```\n[c](no.md)\n```\n";
    assert_eq!(links(text), vec!["docs/x.md#two".to_string()]);
    assert_eq!(
        anchors("# One\n```\n# not\n```\n## Two\n"),
        vec!["one", "two"]
    );
}
