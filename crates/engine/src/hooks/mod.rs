//! The hook shims and the files in a hooks folder: writing ours, chaining
//! the hook that was there, living beside the hook managers people use
//! (pre-commit, lefthook, husky) in either install order, and removing
//! exactly what is ours. The shims (top-level `hooks/`) hold no decisions:
//! they run the chained hook, then `git-evolv hook <name>`. Which folder to
//! use is decided by `ops::hooks`.
//!
//! Where our shim can be, per hook `N` in folder `D`:
//! - `D/N`: git runs it; a foreign hook that was there is `D/N.evolv-chained`
//!   and runs first, with `$0` still `D/N` for shell scripts.
//! - `D/N.legacy` under pre-commit's `D/N`: pre-commit runs it first
//!   ("migration mode"), and `pre-commit uninstall` puts it back at `D/N`.
//! - `D/N.old` under lefthook's `D/N`: lefthook moved it there and never
//!   runs it. Our shim is not running; `install` chains lefthook instead.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};

pub mod binary;
pub mod invocation;
pub mod kind;

pub use kind::{Kind, MARKER, is_ours};

/// The hooks git-evolv installs, with their shim templates.
pub const HOOKS: [(&str, &str); 2] = [
    ("commit-msg", include_str!("../../../../hooks/commit-msg")),
    ("pre-push", include_str!("../../../../hooks/pre-push")),
];

const BIN_PLACEHOLDER: &str = "@GIT_EVOLV_BIN@";

/// Suffix of a foreign hook our shim runs first: `pre-push.evolv-chained`.
/// Kept in the hooks folder itself, so `lefthook uninstall` (which deletes
/// every lefthook file there) removes a chained lefthook hook too.
pub const CHAINED_SUFFIX: &str = ".evolv-chained";
/// Where pre-commit keeps the hook it found, and runs first.
pub const LEGACY_SUFFIX: &str = ".legacy";
/// Where lefthook moves the hook it found (and never runs it).
pub const OLD_SUFFIX: &str = ".old";

/// Quotes a string for sh: `'…'`, with `'` written as `'\''`.
pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The shim for `template` calling `binary` (falling back to PATH).
pub fn render_shim(template: &str, binary: &Path) -> String {
    template.replace(BIN_PLACEHOLDER, &sh_quote(&binary.to_string_lossy()))
}

/// The state of one hook in a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HookState {
    /// Our shim, no foreign hook.
    Installed,
    /// Our shim, running a foreign hook first.
    Chained,
    /// Our shim at `<hook>.legacy`, run by pre-commit's hook first.
    RunByManager,
    /// Our shim exists but git does not run it: a hook manager moved it
    /// aside (`.old`) or wrote its own hook over it.
    NotRunning,
    /// No hook.
    Missing,
    /// Someone else's hook, not chained.
    Foreign,
    /// Our shim is in a folder git does not run because core.hooksPath points elsewhere.
    Bypassed,
}

/// One hook's files and state.
#[derive(Debug, Clone, Serialize)]
pub struct HookStatus {
    pub name: String,
    pub state: HookState,
    /// The file git runs for this hook.
    pub path: PathBuf,
    /// Whether git-evolv's check runs when git runs this hook.
    pub runs: bool,
    /// Our shim, when it is not at `path` (`.legacy`, `.old`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shim: Option<PathBuf>,
    /// The hook manager whose hook is at `path` or chained.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manager: Option<&'static str>,
    /// The foreign hook ours runs first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chained: Option<PathBuf>,
    /// The binary our shim calls (or, in the layout of older versions, the
    /// `git-evolv` our link points to).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
    /// The version of our copy of `git-evolv-hook`, when that is our hook.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Whether our hook is out of date (a copy of another build of
    /// `git-evolv-hook`, or a link to `git-evolv` as older versions
    /// installed): `git evolv hooks install` refreshes it. Only for those.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<bool>,
    /// What this command did: written, updated, unchanged, chained, removed, restored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
    /// What was checked about what runs, and what to do when it does not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The files of one hook in one folder.
struct Files {
    dir: PathBuf,
    name: String,
    main: Option<(Kind, String)>,
    chained: Option<(Kind, String)>,
    legacy: Option<(Kind, String)>,
    old: Option<(Kind, String)>,
}

impl Files {
    fn read(dir: &Path, name: &str) -> Files {
        let get = |suffix: &str| {
            read_hook(&dir.join(format!("{name}{suffix}"))).map(|t| (Kind::of(&t), t))
        };
        Files {
            dir: dir.to_path_buf(),
            name: name.to_string(),
            main: get(""),
            chained: get(CHAINED_SUFFIX),
            legacy: get(LEGACY_SUFFIX),
            old: get(OLD_SUFFIX),
        }
    }

    fn path(&self, suffix: &str) -> PathBuf {
        self.dir.join(format!("{}{suffix}", self.name))
    }

    fn main_kind(&self) -> Option<Kind> {
        self.main.as_ref().map(|(k, _)| *k)
    }

    fn kind(slot: &Option<(Kind, String)>) -> Option<Kind> {
        slot.as_ref().map(|(k, _)| *k)
    }
}

/// Reads a hook file; `None` when absent (a dangling symlink counts as
/// present but foreign). Our copy of the hook binary reads as its
/// description (`copy_text`), and so does our link to `git-evolv` (the
/// layout of older versions, `link_text`): never as a binary's bytes.
fn read_hook(path: &Path) -> Option<String> {
    let meta = fs::symlink_metadata(path).ok()?;
    if meta.is_dir() {
        return Some(String::new());
    }
    if meta.file_type().is_symlink()
        && let Ok(target) = fs::read_link(path)
        && is_our_binary(&target)
    {
        return Some(link_text(&target));
    }
    let bytes = fs::read(path).unwrap_or_default();
    if let Some(version) = binary::version_of(&bytes) {
        return Some(copy_text(&version, &binary::digest(&bytes)));
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// How our copy of the hook binary reads to the functions that sort hook
/// files by their text: marked as ours, with its version and a digest of
/// its bytes (two copies are the same when their texts are).
fn copy_text(version: &str, digest: &str) -> String {
    format!(
        "{MARKER}: a copy of {}\nversion={version}\ndigest={digest}\n",
        binary::NAME
    )
}

/// The description of the hook binary at `path`, as `read_hook` reads a
/// copy of it; `None` when it is not one.
fn copy_text_of(path: &Path) -> Option<String> {
    let bytes = fs::read(path).ok()?;
    let version = binary::version_of(&bytes)?;
    Some(copy_text(&version, &binary::digest(&bytes)))
}

fn text_field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| l.strip_prefix(key))
}

/// Whether a symlink target names git-evolv's binary (`git-evolv`, or a
/// build of it such as `git-evolv-1.2`): the link is ours.
fn is_our_binary(target: &Path) -> bool {
    target
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == "git-evolv" || n.starts_with("git-evolv-"))
}

/// How our link to the binary reads to the functions that sort hook files
/// by their text: marked as ours, with the binary it runs recorded.
fn link_text(target: &Path) -> String {
    format!(
        "{MARKER}: a link to the binary\nrecorded={}\n",
        sh_quote(&target.to_string_lossy())
    )
}

/// Whether `path` is a symlink (our link to the binary).
fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// What `hooks install` would put where our hook without a shim is: the
/// description of the hook binary beside the running `git-evolv`, read
/// once per process.
fn current_copy_text() -> Option<&'static str> {
    static CURRENT: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    CURRENT
        .get_or_init(|| binary::current().and_then(|p| copy_text_of(&p)))
        .as_deref()
}

/// Fills in what our hook file at `at` (its text as `read_hook` gives it)
/// is: the binary a shim or an old link calls, a copy's version, and
/// whether `hooks install` would refresh it.
fn describe_ours(at: &Path, text: &str, s: &mut HookStatus) {
    s.binary = recorded_binary(text);
    if is_link(at) {
        s.stale = Some(true);
        check_link(at, s);
        if s.runs {
            s.notes.push(format!(
                "{} is a link to git-evolv, as older versions installed it; anything that writes \
                 this hook in place would write into the binary: run `git evolv hooks install` \
                 to replace it with a copy of {}",
                at.display(),
                binary::NAME
            ));
        }
        return;
    }
    let Some(version) = text_field(text, "version=") else {
        return;
    };
    s.version = Some(version.to_string());
    let stale = match current_copy_text() {
        Some(current) => current != text,
        None => version != binary::VERSION,
    };
    s.stale = Some(stale);
    if stale {
        s.notes.push(format!(
            "{} is a copy of another build of {} (version {version}, this git-evolv is {}): \
             run `git evolv hooks install` to refresh it",
            at.display(),
            binary::NAME,
            binary::VERSION
        ));
    }
}

fn recorded_binary(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.strip_prefix("recorded="))
        .map(|v| v.trim_matches('\'').replace(r"'\''", "'"))
}

/// The state of hook `name` in `dir`, checked as far as it can be without
/// running anything: whether git runs our shim, and whether the hook it
/// chains can run.
pub fn status_in(dir: &Path, name: &str) -> HookStatus {
    let f = Files::read(dir, name);
    let mut s = HookStatus {
        name: name.to_string(),
        state: HookState::Missing,
        path: f.path(""),
        runs: false,
        shim: None,
        manager: None,
        chained: None,
        binary: None,
        version: None,
        stale: None,
        change: None,
        notes: Vec::new(),
    };
    let ours_aside = [(LEGACY_SUFFIX, &f.legacy), (OLD_SUFFIX, &f.old)]
        .into_iter()
        .find(|(_, slot)| Files::kind(slot) == Some(Kind::Ours))
        .map(|(suffix, slot)| (f.path(suffix), slot.as_ref().map(|(_, t)| t.clone())));
    match &f.main {
        Some((Kind::Ours, text)) => {
            s.runs = is_executable(&s.path);
            let path = s.path.clone();
            describe_ours(&path, text, &mut s);
            if let Some((kind, _)) = &f.chained {
                s.state = HookState::Chained;
                s.manager = kind.manager();
                s.chained = Some(f.path(CHAINED_SUFFIX));
                check_chained(&f, *kind, &mut s);
            } else {
                s.state = HookState::Installed;
            }
        }
        Some((Kind::PreCommit, _)) if Files::kind(&f.legacy) == Some(Kind::Ours) => {
            let shim = f.path(LEGACY_SUFFIX);
            s.state = HookState::RunByManager;
            s.manager = Some("pre-commit");
            s.runs = is_executable(&shim);
            if let Some((_, text)) = &f.legacy {
                describe_ours(&shim, text, &mut s);
            }
            if !s.runs {
                s.notes.push(format!(
                    "{} is not executable, so pre-commit skips it: run `git evolv hooks install`",
                    shim.display()
                ));
            }
            if let Some((kind, _)) = &f.chained {
                s.chained = Some(f.path(CHAINED_SUFFIX));
                check_chained(&f, *kind, &mut s);
            }
            s.shim = Some(shim);
        }
        Some((kind, _)) => {
            s.manager = kind.manager();
            let who = kind.manager().unwrap_or("another tool");
            if let Some((at, text)) = ours_aside {
                s.state = HookState::NotRunning;
                s.binary = text.as_deref().and_then(recorded_binary);
                s.version = text
                    .as_deref()
                    .and_then(|t| text_field(t, "version="))
                    .map(str::to_string);
                s.notes.push(format!(
                    "{who} moved git-evolv's hook to {} and git does not run it: run `git evolv hooks install` to chain {who}'s hook",
                    at.display()
                ));
                s.shim = Some(at);
            } else if f.chained.is_some() {
                s.state = HookState::NotRunning;
                s.notes.push(format!(
                    "{who} wrote its hook over git-evolv's ({} is what git-evolv chained before): run `git evolv hooks install` again",
                    f.path(CHAINED_SUFFIX).display()
                ));
            } else {
                s.state = HookState::Foreign;
            }
        }
        None => {
            if let Some((at, text)) = ours_aside {
                s.state = HookState::NotRunning;
                s.binary = text.as_deref().and_then(recorded_binary);
                s.version = text
                    .as_deref()
                    .and_then(|t| text_field(t, "version="))
                    .map(str::to_string);
                s.notes.push(format!(
                    "git-evolv's hook is at {}, where git does not run it: run `git evolv hooks install`",
                    at.display()
                ));
                s.shim = Some(at);
            }
        }
    }
    s
}

/// Our link to the binary runs when the binary is still there: git skips
/// a hook it cannot execute without a word, so a moved or deleted binary
/// is said here (`git evolv hooks install` from its new place links it
/// again). An upgrade in place keeps working: the link names the path.
fn check_link(link: &Path, s: &mut HookStatus) {
    s.runs = is_executable_by_anyone(link);
    if !s.runs {
        s.notes.push(format!(
            "{} links to {}, which is gone or not executable: git skips the hook without a word; \
             run `git evolv hooks install` with the git-evolv you use now",
            link.display(),
            s.binary.as_deref().unwrap_or("the binary")
        ));
    }
}

/// Checks that the chained hook will run, and says why not.
fn check_chained(f: &Files, kind: Kind, s: &mut HookStatus) {
    let chained = f.path(CHAINED_SUFFIX);
    if !is_executable_by_anyone(&chained) {
        s.notes.push(format!(
            "{} is not executable, so it does not run (git would skip it too)",
            chained.display()
        ));
        return;
    }
    if kind == Kind::Husky {
        // husky's stub runs `.husky/<name>` (the folder above core.hooksPath)
        // through `h` beside it; with neither, it silently does nothing.
        let helper = f.dir.join("h");
        let script = f.dir.parent().map(|p| p.join(&f.name));
        if !helper.is_file() {
            s.notes.push(format!(
                "husky's helper {} is missing: run `npx husky` to restore it",
                helper.display()
            ));
        } else if let Some(script) = script.filter(|p| !p.is_file()) {
            s.notes.push(format!(
                "husky has no {} script, so its hook does nothing for {}",
                script.display(),
                f.name
            ));
        } else {
            s.notes.push(format!(
                "runs husky's {} first (husky sees its own path as $0)",
                f.dir.parent().unwrap_or(&f.dir).join(&f.name).display()
            ));
        }
    }
}

/// Writes our shim for `name` into `dir`, chaining or joining whatever hook
/// is there. Idempotent; repairs the layouts other managers leave behind.
pub fn install_in(dir: &Path, name: &str, template: &str, binary: &Path) -> Result<HookStatus> {
    fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let f = Files::read(dir, name);
    let shim = render_shim(template, binary);
    let main = f.path("");
    let chained = f.path(CHAINED_SUFFIX);
    let legacy = f.path(LEGACY_SUFFIX);
    // Nothing to chain: the hook is a copy of the hook binary, which must
    // be there before anything is touched.
    let copy_from = match (f.main_kind(), &f.chained) {
        (Some(Kind::Ours) | None, None) => Some(binary::require(binary)?),
        _ => None,
    };
    let change = match f.main_kind() {
        Some(Kind::Ours) => {
            remove_ours(&f, &[OLD_SUFFIX, LEGACY_SUFFIX])?;
            if Files::kind(&f.chained) == Some(Kind::PreCommit) {
                // The loop an older install made (pre-commit's hook chained
                // by us while running our shim as its legacy hook): give
                // pre-commit its place back and be its legacy hook.
                fs::rename(&chained, &main).map_err(|e| Error::io("restore", &chained, e))?;
                write_executable(&legacy, &shim)?;
                "repaired: pre-commit's hook is back in place and runs git-evolv's"
            } else if let Some(source) = &copy_from {
                copy_if_changed(&main, source, f.main.as_ref().map(|(_, t)| t.as_str()))?
            } else {
                write_if_changed(&main, &shim, f.main.as_ref().map(|(_, t)| t.as_str()))?
            }
        }
        Some(Kind::PreCommit) => {
            remove_ours(&f, &[OLD_SUFFIX])?;
            if Files::kind(&f.chained) == Some(Kind::PreCommit) {
                remove(&chained)?;
            }
            match Files::kind(&f.legacy) {
                Some(Kind::Ours) => {
                    write_if_changed(&legacy, &shim, f.legacy.as_ref().map(|(_, t)| t.as_str()))?
                }
                Some(_) => {
                    if fs::symlink_metadata(&chained).is_ok() {
                        return Err(Error::HookConflict {
                            path: legacy.clone(),
                            chained: chained.clone(),
                        });
                    }
                    fs::rename(&legacy, &chained)
                        .map_err(|e| Error::io("move aside", &legacy, e))?;
                    write_executable(&legacy, &shim)?;
                    "joined pre-commit (its legacy hook is chained)"
                }
                None => {
                    write_executable(&legacy, &shim)?;
                    "joined pre-commit"
                }
            }
        }
        Some(kind) => {
            remove_ours(&f, &[OLD_SUFFIX, LEGACY_SUFFIX])?;
            if let Some((ckind, ctext)) = &f.chained {
                let same = f.main.as_ref().is_some_and(|(_, t)| t == ctext)
                    || (*ckind == kind && kind.is_manager());
                if !same {
                    return Err(Error::HookConflict {
                        path: main.clone(),
                        chained: chained.clone(),
                    });
                }
                // The manager wrote its hook over ours: the chained copy is
                // its older stub.
                remove(&chained)?;
            }
            fs::rename(&main, &chained).map_err(|e| Error::io("move aside", &main, e))?;
            write_executable(&main, &shim)?;
            "chained"
        }
        None => {
            let had_aside = Files::kind(&f.old) == Some(Kind::Ours)
                || Files::kind(&f.legacy) == Some(Kind::Ours);
            remove_ours(&f, &[OLD_SUFFIX, LEGACY_SUFFIX])?;
            let source = match &copy_from {
                Some(source) => source.clone(),
                None => binary::require(binary)?,
            };
            binary::copy_to(&source, &main)?;
            if had_aside { "moved back" } else { "written" }
        }
    };
    let mut status = status_in(dir, name);
    status.change = Some(change.to_string());
    Ok(status)
}

/// Removes our shim for `name` from `dir` wherever it is, and puts the hook
/// it chained back where it was. Another manager's hook is left working.
pub fn uninstall_in(dir: &Path, name: &str) -> Result<HookStatus> {
    let f = Files::read(dir, name);
    let main = f.path("");
    let chained = f.path(CHAINED_SUFFIX);
    let has_chained = f.chained.is_some();
    let ours_at = |slot: &Option<(Kind, String)>| Files::kind(slot) == Some(Kind::Ours);
    let change = match f.main_kind() {
        Some(Kind::Ours) => {
            remove(&main)?;
            remove_ours(&f, &[OLD_SUFFIX, LEGACY_SUFFIX])?;
            if has_chained {
                fs::rename(&chained, &main).map_err(|e| Error::io("restore", &chained, e))?;
                "restored"
            } else {
                "removed"
            }
        }
        main_kind => {
            let aside = [LEGACY_SUFFIX, OLD_SUFFIX].into_iter().find(|s| {
                ours_at(if *s == LEGACY_SUFFIX {
                    &f.legacy
                } else {
                    &f.old
                })
            });
            match aside {
                Some(suffix) => {
                    let at = f.path(suffix);
                    remove(&at)?;
                    remove_ours(&f, &[OLD_SUFFIX, LEGACY_SUFFIX])?;
                    if let Some((ckind, _)) = &f.chained {
                        if Some(*ckind) == main_kind && ckind.is_manager() {
                            remove(&chained)?;
                        } else {
                            // The hook our shim chained goes back where the
                            // manager keeps the hook it found.
                            fs::rename(&chained, &at)
                                .map_err(|e| Error::io("restore", &chained, e))?;
                        }
                    }
                    "removed"
                }
                None if main_kind.is_none() && has_chained => {
                    fs::rename(&chained, &main).map_err(|e| Error::io("restore", &chained, e))?;
                    "restored"
                }
                None if has_chained
                    && f.chained.as_ref().map(|(k, _)| *k) == main_kind
                    && main_kind.is_some_and(Kind::is_manager) =>
                {
                    // A manager wrote over our shim; its old stub is ours to drop.
                    remove(&chained)?;
                    "removed a leftover copy"
                }
                None => "not installed",
            }
        }
    };
    let mut status = status_in(dir, name);
    status.change = Some(change.to_string());
    Ok(status)
}

/// Deletes our shims at `main + suffix` for each suffix.
fn remove_ours(f: &Files, suffixes: &[&str]) -> Result<()> {
    for suffix in suffixes {
        let slot = match *suffix {
            LEGACY_SUFFIX => &f.legacy,
            OLD_SUFFIX => &f.old,
            _ => &f.chained,
        };
        if Files::kind(slot) == Some(Kind::Ours) {
            remove(&f.path(suffix))?;
        }
    }
    Ok(())
}

fn remove(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io("remove", path, e)),
        _ => Ok(()),
    }
}

fn write_if_changed(path: &Path, shim: &str, current: Option<&str>) -> Result<&'static str> {
    if current == Some(shim) && is_executable(path) {
        Ok("unchanged")
    } else {
        write_executable(path, shim)?;
        Ok("updated")
    }
}

/// Copies the hook binary to `path` unless the same build is there
/// (`current` is what `read_hook` read at `path`). A link to `git-evolv`
/// (the layout of older versions) or a stale copy is replaced, never
/// written through.
fn copy_if_changed(path: &Path, source: &Path, current: Option<&str>) -> Result<&'static str> {
    let wanted = copy_text_of(source);
    if !is_link(path) && is_executable(path) && wanted.is_some() && current == wanted.as_deref() {
        return Ok("unchanged");
    }
    binary::copy_to(source, path)?;
    Ok("updated")
}

fn is_executable_by_anyone(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o777 == 0o755)
}

/// Temp file in the same folder, mode 0755, then rename: a hook is never
/// seen half-written.
fn write_executable(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().expect("hook paths have a folder");
    let mut tmp = tempfile::Builder::new()
        .prefix(".git-evolv-hook")
        .tempfile_in(dir)
        .map_err(|e| Error::io("create a temp file in", dir, e))?;
    tmp.write_all(text.as_bytes())
        .map_err(|e| Error::io("write", tmp.path().to_path_buf(), e))?;
    fs::set_permissions(tmp.path(), fs::Permissions::from_mode(0o755))
        .map_err(|e| Error::io("chmod", tmp.path().to_path_buf(), e))?;
    tmp.persist(path)
        .map_err(|e| Error::io("write", path, e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shims_carry_the_marker_and_quote_the_binary() {
        for (name, template) in HOOKS {
            assert!(is_ours(template), "{name}");
            let shim = render_shim(template, Path::new("/opt/it's here/git-evolv"));
            assert!(
                shim.contains(r"recorded='/opt/it'\''s here/git-evolv'"),
                "{shim}"
            );
            assert_eq!(
                recorded_binary(&shim).as_deref(),
                Some("/opt/it's here/git-evolv")
            );
            assert!(shim.contains(&format!("hook={name}")));
        }
        assert!(!is_ours("#!/bin/sh\necho mine\n"));
    }

    #[test]
    fn install_chains_and_uninstall_restores() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("pre-push"), "#!/bin/sh\necho foreign\n").unwrap();
        let bin = Path::new("/usr/bin/git-evolv");
        let s = install_in(d, "pre-push", HOOKS[1].1, bin).unwrap();
        assert_eq!(
            (s.state, s.change.as_deref()),
            (HookState::Chained, Some("chained"))
        );
        let s = install_in(d, "pre-push", HOOKS[1].1, bin).unwrap();
        assert_eq!(s.change.as_deref(), Some("unchanged"));
        let s = uninstall_in(d, "pre-push").unwrap();
        assert_eq!(
            (s.state, s.change.as_deref()),
            (HookState::Foreign, Some("restored"))
        );
        assert_eq!(
            fs::read_to_string(d.join("pre-push")).unwrap(),
            "#!/bin/sh\necho foreign\n"
        );
        assert_eq!(status_in(d, "commit-msg").state, HookState::Missing);
    }

    #[test]
    fn install_refuses_to_overwrite_a_foreign_hook_and_a_chained_one() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("pre-push"), "#!/bin/sh\necho new\n").unwrap();
        fs::write(d.join("pre-push.evolv-chained"), "#!/bin/sh\necho old\n").unwrap();
        let err = install_in(d, "pre-push", HOOKS[1].1, Path::new("/x")).unwrap_err();
        assert_eq!(err.code(), "hook_conflict");
        assert_eq!(
            fs::read_to_string(d.join("pre-push")).unwrap(),
            "#!/bin/sh\necho new\n"
        );
        // Uninstall leaves a foreign hook alone.
        let s = uninstall_in(d, "pre-push").unwrap();
        assert_eq!(s.change.as_deref(), Some("not installed"));
        assert!(d.join("pre-push.evolv-chained").exists());
    }
}
