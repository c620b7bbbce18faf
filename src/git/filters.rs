//! The bytes git itself would put in the working tree for a blob: smudge
//! filters (LFS and any other driver), `ident`, `working-tree-encoding` and
//! CRLF conversion. libgit2 skips drivers it does not know, so a path that
//! any of these could touch is converted by `git cat-file --filters`, the
//! same code git's checkout runs; every other path is the blob itself.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;

use git2::{AttrCheckFlags, AttrValue, Oid, Repository};

use crate::error::{Error, Result};

/// What this process learnt about attribute sources, so a path in a
/// repository without attributes costs no libgit2 attribute lookup (issue
/// 14 item 1: about 12 per changed file, each re-stat'ing `.gitattributes`
/// in every parent directory): whether any source outside the working tree
/// exists, whether the index tracks any `.gitattributes`, and which
/// working-tree directories hold one.
struct Sources {
    none_outside: bool,
    none_indexed: bool,
    dirs: HashMap<String, bool>,
}

/// Keyed by the git dir: a long-running front end (MCP) may serve several.
static SOURCES: Mutex<Option<(std::path::PathBuf, Sources)>> = Mutex::new(None);

/// Forgets what `Sources` learnt: a `.gitattributes` was written or removed.
pub fn attributes_changed(path: &str) {
    if path == ".gitattributes" || path.ends_with("/.gitattributes") {
        *SOURCES.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

impl Sources {
    fn new(repo: &Repository) -> Self {
        let mut outside = vec![
            repo.commondir().join("info/attributes"),
            repo.path().join("info/attributes"),
        ];
        if std::env::var_os("GIT_ATTR_NOSYSTEM").is_none() {
            outside.push("/etc/gitattributes".into());
        }
        match repo
            .config()
            .and_then(|c| c.get_path("core.attributesFile"))
        {
            Ok(p) => outside.push(p),
            Err(_) => {
                let xdg = std::env::var_os("XDG_CONFIG_HOME")
                    .map(std::path::PathBuf::from)
                    .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")));
                if let Some(x) = xdg {
                    outside.push(x.join("git/attributes"));
                }
            }
        }
        let none_indexed = super::index_cache::with_index(repo, |ix| {
            !ix.entries
                .iter()
                .any(|e| e.path == b".gitattributes" || e.path.ends_with(b"/.gitattributes"))
        })
        .unwrap_or(false);
        Sources {
            none_outside: !outside.iter().any(|p| exists(p)),
            none_indexed,
            dirs: HashMap::new(),
        }
    }
}

/// Whether no attribute can apply to `path`: no source outside the working
/// tree, none tracked, and no `.gitattributes` in any of its directories.
/// `false` only means "ask libgit2".
pub(crate) fn surely_unattributed(repo: &Repository, path: &str) -> bool {
    let Some(workdir) = repo.workdir() else {
        return false;
    };
    let mut guard = SOURCES.lock().unwrap_or_else(|e| e.into_inner());
    if guard.as_ref().is_none_or(|(dir, _)| dir != repo.path()) {
        *guard = Some((repo.path().to_path_buf(), Sources::new(repo)));
    }
    let Some((_, sources)) = guard.as_mut() else {
        return false;
    };
    if !sources.none_outside || !sources.none_indexed {
        return false;
    }
    let mut dir = String::new();
    let mut parts = path.split('/').peekable();
    while let Some(part) = parts.next() {
        let has = *sources
            .dirs
            .entry(dir.clone())
            .or_insert_with(|| exists(&workdir.join(&dir).join(".gitattributes")));
        if has {
            return false;
        }
        if parts.peek().is_none() {
            break;
        }
        if !dir.is_empty() {
            dir.push('/');
        }
        dir.push_str(part);
    }
    true
}

/// `core.autocrlf=true` and `core.eol=crlf`, read once per repository.
fn eol_config(repo: &Repository) -> (bool, bool) {
    static EOL: super::PerRepo<(bool, bool)> = super::PerRepo::new();
    EOL.get(repo, || {
        let Ok(config) = repo.config() else {
            return (false, false);
        };
        let autocrlf = config
            .get_string("core.autocrlf")
            .is_ok_and(|v| v.eq_ignore_ascii_case("true"));
        let eol_crlf = config
            .get_string("core.eol")
            .is_ok_and(|v| v.eq_ignore_ascii_case("crlf"));
        (autocrlf, eol_crlf)
    })
}

/// Whether git could convert `path` on checkout, from its attributes and
/// `core.autocrlf` / `core.eol`. Over-answering only costs a git call.
pub fn converts(repo: &Repository, path: &str) -> Result<bool> {
    let (autocrlf, eol_crlf) = eol_config(repo);
    if surely_unattributed(repo, path) {
        // No attribute: only `core.autocrlf=true` converts (`core.eol`
        // applies to paths with `text` set).
        return Ok(autocrlf);
    }
    let attr = |name: &str| -> Result<Option<String>> {
        let flags = AttrCheckFlags::FILE_THEN_INDEX;
        Ok(
            match AttrValue::from_string(repo.get_attr(Path::new(path), name, flags)?) {
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
    repo: &Repository,
    paths: &[&str],
) -> Result<std::collections::HashMap<String, String>> {
    use std::io::Write;
    let mut out = std::collections::HashMap::new();
    if paths.is_empty() {
        return Ok(out);
    }
    let dir = repo.workdir().unwrap_or_else(|| repo.path());
    let mut child = Command::new("git")
        .args(["check-attr", "-z", "--stdin", "filter", "binary", "text"])
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
        return Err(Error::Git {
            message: format!(
                "`git check-attr` failed: {}",
                String::from_utf8_lossy(&result.stderr).trim()
            ),
        });
    }
    let fields: Vec<&[u8]> = result.stdout.split(|b| *b == 0).collect();
    for triple in fields.chunks_exact(3) {
        let path = String::from_utf8_lossy(triple[0]).into_owned();
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

/// What git's checkout would write at `path` for blob `id`, when git
/// converts that path; `None` when the blob's own bytes are what it writes.
pub fn smudged(repo: &Repository, path: &str, id: Oid) -> Result<Option<Vec<u8>>> {
    if !converts(repo, path)? {
        return Ok(None);
    }
    let workdir = crate::git::workdir(repo)?;
    let out = Command::new("git")
        .arg("cat-file")
        .arg("--filters")
        .arg(format!("--path={path}"))
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
        return Err(Error::Git {
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
pub fn cleaned_id(repo: &Repository, path: &str) -> Result<Oid> {
    let workdir = crate::git::workdir(repo)?;
    let out = Command::new("git")
        .args(["hash-object", "--"])
        .arg(path)
        .current_dir(workdir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::io("run `git hash-object` (is git on PATH?) in", workdir, e))?;
    let text = String::from_utf8_lossy(&out.stdout);
    match Oid::from_str(text.trim()) {
        Ok(id) if out.status.success() => Ok(id),
        _ => Err(Error::Git {
            message: format!(
                "`git hash-object -- {path}` failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        }),
    }
}

/// Whether the file at `path` is what the index records, compared through
/// git's clean filters (`git diff`), for paths `converts` says git
/// transforms: libgit2 would compare a smudged file with the raw blob.
pub fn worktree_matches_index(repo: &Repository, path: &str) -> Result<bool> {
    let workdir = crate::git::workdir(repo)?;
    let out = Command::new("git")
        // Read-only: a landing may hold index.lock while it asks.
        .args(["--no-optional-locks", "diff", "--quiet", "--"])
        .arg(format!(":(literal){path}"))
        .current_dir(workdir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::io("run `git diff` (is git on PATH?) in", workdir, e))?;
    match out.status.code() {
        Some(0) => Ok(true),
        Some(1) => Ok(false),
        _ => Err(Error::Git {
            message: format!(
                "`git diff --quiet -- {path}` failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        }),
    }
}
