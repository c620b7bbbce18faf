//! What state a hook is in: whether git runs our shim, what the hook it
//! chains is and whether that can run, and what to do when it does not.

use std::path::{Path, PathBuf};

use super::files::{
    Files, current_copy_text, is_executable, is_executable_by_anyone, is_link, text_field,
};
use super::plan;
use super::{CHAINED_SUFFIX, HookState, HookStatus, Kind, LEGACY_SUFFIX, OLD_SUFFIX, binary};

/// Fills in what our hook file at `at` (its text as `read_hook` gives it)
/// is: the binary a shim or an old link calls, a copy's version, and
/// whether `hooks install` would refresh it.
fn describe_ours(at: &Path, text: &str, install: &str, s: &mut HookStatus) {
    s.binary = recorded_binary(text);
    if is_link(at) {
        s.stale = Some(true);
        check_link(at, install, s);
        if s.runs {
            s.notes.push(format!(
                "{} is a link to git-evolv, as older versions installed it; anything that writes \
                 this hook in place would write into the binary: run `{install}` \
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
             run `{install}` to refresh it",
            at.display(),
            binary::NAME,
            binary::VERSION
        ));
    }
}

pub(super) fn recorded_binary(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.strip_prefix("recorded="))
        .map(|v| v.trim_matches('\'').replace(r"'\''", "'"))
}

/// The state of hook `name` in `dir`, checked as far as it can be without
/// running anything: whether git runs our shim, and whether the hook it
/// chains can run. `install` is the command its advice names: the one
/// that installs where git runs hooks (`--hooks-path` with core.hooksPath).
pub fn status_in(dir: &Path, name: &str, install: &str) -> HookStatus {
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
        Some((Kind::Ours, text)) => ours_in_place(&f, text, install, &mut s),
        Some((Kind::PreCommit, _)) if Files::kind(&f.legacy) == Some(Kind::Ours) => {
            run_by_pre_commit(&f, install, &mut s)
        }
        Some((kind, _)) => foreign_in_place(&f, *kind, ours_aside, install, &mut s),
        None => {
            if let Some((at, text)) = ours_aside {
                not_running(at, text, &mut s, |at| {
                    format!(
                        "git-evolv's hook is at {}, where git does not run it: run `{install}`",
                        at.display()
                    )
                });
            }
        }
    }
    s
}

/// Our shim is the hook git runs (`D/N`), chaining a foreign one or not.
fn ours_in_place(f: &Files, text: &str, install: &str, s: &mut HookStatus) {
    s.runs = is_executable(&s.path);
    let path = s.path.clone();
    describe_ours(&path, text, install, s);
    if let Some((kind, _)) = &f.chained {
        s.state = HookState::Chained;
        s.manager = kind.manager();
        s.chained = Some(f.path(CHAINED_SUFFIX));
        check_chained(f, *kind, s);
    } else {
        s.state = HookState::Installed;
    }
}

/// Our shim is pre-commit's legacy hook (`D/N.legacy`), which it runs first.
fn run_by_pre_commit(f: &Files, install: &str, s: &mut HookStatus) {
    let shim = f.path(LEGACY_SUFFIX);
    s.state = HookState::RunByManager;
    s.manager = Some("pre-commit");
    s.runs = is_executable(&shim);
    if let Some((_, text)) = &f.legacy {
        describe_ours(&shim, text, install, s);
    }
    if !s.runs {
        s.notes.push(format!(
            "{} is not executable, so pre-commit skips it: run `{install}`",
            shim.display()
        ));
    }
    if let Some((kind, _)) = &f.chained {
        s.chained = Some(f.path(CHAINED_SUFFIX));
        check_chained(f, *kind, s);
    }
    s.shim = Some(shim);
}

/// Someone else's hook is the one git runs: ours is aside (not running),
/// was written over, or was never there.
fn foreign_in_place(
    f: &Files,
    kind: Kind,
    ours_aside: Option<(PathBuf, Option<String>)>,
    install: &str,
    s: &mut HookStatus,
) {
    s.manager = kind.manager();
    let who = kind.manager().unwrap_or("another tool");
    if let Some((at, text)) = ours_aside {
        let fix = install_fix(f, install, &format!("to chain {who}'s hook"));
        not_running(at, text, s, |at| {
            format!(
                "{who} moved git-evolv's hook to {} and git does not run it: {fix}",
                at.display()
            )
        });
    } else if f.chained.is_some() {
        s.state = HookState::NotRunning;
        s.notes.push(format!(
            "{who} wrote its hook over git-evolv's ({} is what git-evolv chained before): {}",
            f.path(CHAINED_SUFFIX).display(),
            install_fix(f, install, "again")
        ));
    } else {
        s.state = HookState::Foreign;
    }
}

/// Advice that works when followed: run `install` (`why` says what for),
/// or, where install would refuse two different hooks, merge them first.
fn install_fix(f: &Files, install: &str, why: &str) -> String {
    match plan::conflict(f) {
        None => format!("run `{install}` {why}"),
        Some(_) => format!(
            "{} and {} are different hooks: merge them into {} by hand and delete {}, then run `{install}`",
            f.path("").display(),
            f.path(CHAINED_SUFFIX).display(),
            f.path("").display(),
            f.path(CHAINED_SUFFIX).display()
        ),
    }
}

/// Our shim at `at` (its text `text`), where git does not run it; `note`
/// says why.
fn not_running(
    at: PathBuf,
    text: Option<String>,
    s: &mut HookStatus,
    note: impl FnOnce(&Path) -> String,
) {
    s.state = HookState::NotRunning;
    s.binary = text.as_deref().and_then(recorded_binary);
    s.version = text
        .as_deref()
        .and_then(|t| text_field(t, "version="))
        .map(str::to_string);
    s.notes.push(note(&at));
    s.shim = Some(at);
}

/// Our link to the binary runs when the binary is still there: git skips
/// a hook it cannot execute without a word, so a moved or deleted binary
/// is said here (`git evolv hooks install` from its new place links it
/// again). An upgrade in place keeps working: the link names the path.
fn check_link(link: &Path, install: &str, s: &mut HookStatus) {
    s.runs = is_executable_by_anyone(link);
    if !s.runs {
        s.notes.push(format!(
            "{} links to {}, which is gone or not executable: git skips the hook without a word; \
             run `{install}` with the git-evolv you use now",
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
