//! The bytes git itself would put in the working tree for a blob: smudge
//! filters (LFS and any other driver), `ident`, `working-tree-encoding` and
//! CRLF conversion. libgit2 skips drivers it does not know, so a path that
//! any of these could touch is converted by `git cat-file --filters`, the
//! same code git's checkout runs; every other path is the blob itself.

use crate::Context;
use crate::on_path;
use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use crate::Oid;
use git2::{AttrCheckFlags, AttrValue};

use crate::error::{Error, Result};
use crate::{Repo, RepoPath};

/// Forgets what the handle learnt about attribute sources: a
/// `.gitattributes` was written or removed.
pub fn attributes_changed(repo: &Repo, path: &RepoPath) {
    if path.is_gitattributes() {
        repo.forget_attribute_sources();
        *PRIMED.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// Whether git handed this process a setting of its own (`git -c`, which
/// git subprocesses inherit and libgit2 does not read) that changes which
/// attributes a path has: another attributes file, attributes read from a
/// tree, or case-insensitive matching. Then git itself (`check-attr`) says
/// which paths it converts. Any other `git -c` setting leaves libgit2's
/// attribute lookup right (`core.autocrlf` and `core.eol` are read through
/// the config adapter, which sees `git -c`), so a `git -c checkout.workers=1`
/// costs nothing per file. An environment git would refuse counts as one.
fn command_line_moves_attributes() -> bool {
    let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty() && v != "0");
    if !set("GIT_CONFIG_PARAMETERS") && !set("GIT_CONFIG_COUNT") {
        return false;
    }
    crate::config::Env::from_process().map_or(true, |env| {
        env.command_line.iter().any(|(key, _)| {
            let key = key.to_ascii_lowercase();
            matches!(
                key.as_str(),
                "core.attributesfile" | "core.ignorecase" | "attr.tree"
            )
        })
    })
}

/// `core.autocrlf=true` and `core.eol=crlf`, read once per repository
/// through the config adapter, so `git -c core.autocrlf=true evolv apply`
/// writes what `git -c core.autocrlf=true checkout` writes (libgit2 does
/// not see `git -c`).
fn eol_config(repo: &Repo) -> (bool, bool) {
    repo.eol(|| {
        let Ok(config) = repo.config() else {
            return (false, false);
        };
        let autocrlf = config
            .string("core.autocrlf")
            .and_then(crate::config::parse_bool)
            == Some(true);
        let eol_crlf = config
            .string("core.eol")
            .is_some_and(|v| v.eq_ignore_ascii_case("crlf"));
        (autocrlf, eol_crlf)
    })
}

/// The attributes `converts` reads.
const CONVERSION_ATTRS: [&str; 6] = [
    "filter",
    "ident",
    "working-tree-encoding",
    "eol",
    "text",
    "crlf",
];

/// Answers of `converts` found by `prime`, for one repository (its git
/// dir): a landing of thousands of files asks for each, and a repository
/// with attributes would otherwise cost six libgit2 lookups per path.
type Primed = (std::path::PathBuf, HashMap<Vec<u8>, bool>);
static PRIMED: Mutex<Option<Primed>> = Mutex::new(None);

/// Answers `converts` for every path of `paths` ahead: those that may have
/// attributes from one `git check-attr --stdin` (issue 14 item 1), the
/// others from `core.autocrlf` alone, so that no lookup (and no other
/// repository handle, such as a writer thread's) has to learn the
/// attribute sources again. Dropped by `unprime` (the landing's writers are
/// done), the next `prime`, or a change to a `.gitattributes`.
pub fn prime<'a>(repo: &Repo, paths: impl IntoIterator<Item = &'a RepoPath>) -> Result<()> {
    // libgit2's view of the attribute files is wrong under such a `git -c`:
    // every path is asked.
    let git_decides = command_line_moves_attributes();
    let (autocrlf, eol_crlf) = eol_config(repo);
    let mut answers = HashMap::new();
    let mut asked: Vec<&RepoPath> = Vec::new();
    for path in paths {
        if git_decides || !repo.surely_unattributed(path) {
            asked.push(path);
        } else {
            // As `converts` answers it; the writers' own handles then
            // need not learn the attribute sources again.
            answers.insert(path.as_bytes().to_vec(), autocrlf);
        }
    }
    if !asked.is_empty() {
        let stdout = check_attr(repo, &asked, &CONVERSION_ATTRS)?;
        let mut values: HashMap<Vec<u8>, HashMap<String, String>> = HashMap::new();
        let fields: Vec<&[u8]> = stdout.split(|b| *b == 0).collect();
        for triple in fields.chunks_exact(3) {
            let value = match triple[2] {
                b"unspecified" => continue,
                b"set" => "true".to_string(),
                b"unset" => "false".to_string(),
                v => String::from_utf8_lossy(v).into_owned(),
            };
            values
                .entry(triple[0].to_vec())
                .or_default()
                .insert(String::from_utf8_lossy(triple[1]).into_owned(), value);
        }
        for path in asked {
            let v = values.get(path.as_bytes());
            let get = |name: &str| v.and_then(|v| v.get(name)).cloned();
            answers.insert(path.as_bytes().to_vec(), decide(autocrlf, eol_crlf, get));
        }
    }
    *PRIMED.lock().unwrap_or_else(|e| e.into_inner()) =
        Some((repo.raw().path().to_path_buf(), answers));
    Ok(())
}

/// Drops what `prime` found: it holds for the files of one landing, and a
/// process that lives on (the MCP server, the review page) must not answer
/// a later command from attributes that may have changed since.
pub fn unprime() {
    *PRIMED.lock().unwrap_or_else(|e| e.into_inner()) = None;
}

fn primed(repo: &Repo, path: &RepoPath) -> Option<bool> {
    let guard = PRIMED.lock().unwrap_or_else(|e| e.into_inner());
    match &*guard {
        Some((dir, answers)) if dir == repo.raw().path() => answers.get(path.as_bytes()).copied(),
        _ => None,
    }
}

/// Whether git converts a path whose attribute `name` has the value
/// `attr(name)` (`None`: unspecified; "true"/"false": set/unset).
fn decide(autocrlf: bool, eol_crlf: bool, attr: impl Fn(&str) -> Option<String>) -> bool {
    let valued = |v: &Option<String>| v.as_deref().is_some_and(|v| v != "false");
    if valued(&attr("filter")) || valued(&attr("ident")) {
        return true;
    }
    if valued(&attr("working-tree-encoding")) || attr("eol").as_deref() == Some("crlf") {
        return true;
    }
    let text = attr("text");
    if text.as_deref() == Some("false") || attr("crlf").as_deref() == Some("false") {
        return false;
    }
    autocrlf || (eol_crlf && text.is_some())
}

/// Whether git could convert `path` on checkout, from its attributes and
/// `core.autocrlf` / `core.eol`. Over-answering only costs a git call.
pub fn converts(repo: &Repo, path: &RepoPath) -> Result<bool> {
    // `prime` asked git itself (`check-attr`, which sees `git -c`).
    if let Some(answer) = primed(repo, path) {
        return Ok(answer);
    }
    if command_line_moves_attributes() {
        // Attribute files libgit2's lookup cannot see: let git decide.
        return Ok(true);
    }
    let (autocrlf, eol_crlf) = eol_config(repo);
    if repo.surely_unattributed(path) {
        // No attribute: only `core.autocrlf=true` converts (`core.eol`
        // applies to paths with `text` set).
        return Ok(autocrlf);
    }
    let attr = |name: &str| -> Result<Option<String>> {
        let flags = AttrCheckFlags::FILE_THEN_INDEX;
        Ok(
            match AttrValue::from_string(repo.raw().get_attr(path.fs(), name, flags).context(
                || {
                    on_path("read attribute", path.fs())
                        .said(format!("read attribute {name} of {path}"))
                },
            )?) {
                AttrValue::True => Some("true".into()),
                AttrValue::False => Some("false".into()),
                AttrValue::String(s) => Some(s.to_string()),
                AttrValue::Bytes(b) => Some(String::from_utf8_lossy(b).into_owned()),
                AttrValue::Unspecified => None,
            },
        )
    };
    let valued = |v: &Option<String>| v.as_deref().is_some_and(|v| v != "false");
    if valued(&attr("filter")?) || valued(&attr("ident")?) {
        return Ok(true);
    }
    if valued(&attr("working-tree-encoding")?) || attr("eol")?.as_deref() == Some("crlf") {
        return Ok(true);
    }
    let text = attr("text")?;
    if text.as_deref() == Some("false") || attr("crlf")?.as_deref() == Some("false") {
        return Ok(false);
    }
    Ok(autocrlf || (eol_crlf && text.is_some()))
}

/// Why git does not treat each of `paths` as plain text, from their
/// attributes as `git check-attr` reads them (one call for all; libgit2
/// would have to load the index, which it cannot in a split or sparse
/// index): a `filter` driver (git-lfs keeps a pointer in the blob),
/// `binary`, or `-text`. Paths that are ordinary text are absent. Used by
/// propose, which must not edit such a file as text (#16 item 3).
pub fn not_text(
    repo: &Repo,
    paths: &[&RepoPath],
) -> Result<std::collections::HashMap<RepoPath, String>> {
    let mut out = std::collections::HashMap::new();
    if paths.is_empty() {
        return Ok(out);
    }
    let stdout = check_attr(repo, paths, &["filter", "binary", "text"])?;
    let fields: Vec<&[u8]> = stdout.split(|b| *b == 0).collect();
    for triple in fields.chunks_exact(3) {
        let path = RepoPath::from(triple[0]);
        let value = String::from_utf8_lossy(triple[2]);
        let reason = match (&*String::from_utf8_lossy(triple[1]), &*value) {
            ("filter", "unspecified" | "unset") => None,
            ("filter", "set") => Some("its attributes give it a filter driver".to_string()),
            ("filter", driver) => Some(format!(
                "its attributes give it the filter driver '{driver}' (the blob is not the file's text)"
            )),
            ("binary", "set") => Some("its attributes mark it `binary`".to_string()),
            ("text", "unset") => Some("its attributes mark it `-text`".to_string()),
            _ => None,
        };
        if let Some(reason) = reason {
            out.entry(path).or_insert(reason);
        }
    }
    Ok(out)
}

/// `git check-attr -z --stdin ATTRS…` for `paths`: its output.
fn check_attr(repo: &Repo, paths: &[&RepoPath], attrs: &[&str]) -> Result<Vec<u8>> {
    use std::io::Write;
    let dir = repo.raw().workdir().unwrap_or_else(|| repo.raw().path());
    let mut child = Command::new("git")
        .args(["check-attr", "-z", "--stdin"])
        .args(attrs)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::io("run `git check-attr` (is git on PATH?) in", dir, e))?;
    let mut input = Vec::new();
    for path in paths {
        input.extend_from_slice(path.as_bytes());
        input.push(0);
    }
    let stdin = child.stdin.take();
    // Written from a thread: git answers while it reads, and a large
    // answer must not block against a large question.
    let writer = std::thread::spawn(move || {
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(&input);
        }
    });
    let result = child
        .wait_with_output()
        .map_err(|e| Error::io("wait for `git check-attr` in", dir, e))?;
    let _ = writer.join();
    if !result.status.success() {
        return Err(Error::GitCommand {
            command: "git check-attr".into(),
            message: format!(
                "`git check-attr` failed: {}",
                String::from_utf8_lossy(&result.stderr).trim()
            ),
        });
    }
    Ok(result.stdout)
}

/// What git's checkout would write at `path` for blob `id`, when git
/// converts that path; `None` when the blob's own bytes are what it writes.
pub fn smudged(repo: &Repo, path: &RepoPath, id: Oid) -> Result<Option<Vec<u8>>> {
    if !converts(repo, path)? {
        return Ok(None);
    }
    let workdir = crate::workdir(repo)?;
    let mut path_arg = std::ffi::OsString::from("--path=");
    path_arg.push(path.fs().as_os_str());
    let out = Command::new("git")
        .arg("cat-file")
        .arg("--filters")
        .arg(path_arg)
        .arg(id.to_string())
        .current_dir(workdir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| {
            Error::io(
                "run `git cat-file --filters` (is git on PATH?) in",
                workdir,
                e,
            )
        })?;
    if !out.status.success() {
        return Err(Error::GitCommand {
            command: format!("git cat-file --filters --path={path} {id}"),
            message: format!(
                "`git cat-file --filters --path={path} {id}` failed, so git-evolv cannot write {path} \
                 as git would: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        });
    }
    Ok(Some(out.stdout))
}

/// The blob id git would record for the file at `path` (`git hash-object`,
/// clean filters and attributes applied as they are now): the file holds a
/// blob, for git, exactly when this is its id.
pub fn cleaned_id(repo: &Repo, path: &RepoPath) -> Result<Oid> {
    let workdir = crate::workdir(repo)?;
    let out = Command::new("git")
        .args(["hash-object", "--"])
        .arg(path.fs())
        .current_dir(workdir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::io("run `git hash-object` (is git on PATH?) in", workdir, e))?;
    crate::process::cli::printed_id(&out).ok_or_else(|| Error::GitCommand {
        command: format!("git hash-object -- {path}"),
        message: format!(
            "`git hash-object -- {path}` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
    })
}

/// Whether the file at `path` is what the index records, compared through
/// git's clean filters (`git diff`), for paths `converts` says git
/// transforms: libgit2 would compare a smudged file with the raw blob.
pub fn worktree_matches_index(repo: &Repo, path: &RepoPath) -> Result<bool> {
    let workdir = crate::workdir(repo)?;
    let mut spec = std::ffi::OsString::from(":(literal)");
    spec.push(path.fs().as_os_str());
    let out = Command::new("git")
        // Read-only: a landing may hold index.lock while it asks.
        .args(["--no-optional-locks", "diff", "--quiet", "--"])
        .arg(spec)
        .current_dir(workdir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::io("run `git diff` (is git on PATH?) in", workdir, e))?;
    match out.status.code() {
        Some(0) => Ok(true),
        Some(1) => Ok(false),
        _ => Err(Error::GitCommand {
            command: format!("git diff --quiet -- {path}"),
            message: format!(
                "`git diff --quiet -- {path}` failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        }),
    }
}
