//! Manual pages generated from the clap definitions (`clap_mangen`):
//! `git-evolv(1)` and one `git-evolv-<subcommand>(1)` per subcommand, each
//! with examples, and the exit status and error code tables taken from the
//! README (the one place they are written). `git evolv install-man` writes
//! them under `<prefix>/share/man/man1`, where man finds them for a
//! `<prefix>/bin` on PATH (`~/.cargo/bin` → `~/.cargo/share/man`), so
//! `git evolv --help` (git turns it into `git help evolv`, which runs
//! `man git-evolv`) shows the manual. `git evolv help [<subcommand>]`
//! renders the page itself.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};

use clap::{Args, Command, CommandFactory};

use super::{Cli, Output};
use crate::error::{Error, Result};

/// The README, whose exit-code and error-code tables the pages quote.
const README: &str = include_str!("../../README.md");

#[derive(Debug, Args)]
pub struct HelpArgs {
    /// The subcommand whose manual to show (default: git-evolv's).
    #[arg(value_name = "SUBCOMMAND")]
    pub subcommand: Option<String>,
}

#[derive(Debug, Args)]
pub struct InstallManArgs {
    /// Install under PREFIX/share/man/man1 (default: the prefix of this
    /// binary, e.g. ~/.cargo for ~/.cargo/bin/git-evolv).
    #[arg(long, value_name = "PREFIX")]
    pub prefix: Option<PathBuf>,
}

/// One page: its file name (`git-evolv-apply.1`) and roff text.
pub struct Page {
    pub name: String,
    pub roff: Vec<u8>,
}

/// Every page: git-evolv(1), then one per subcommand.
pub fn pages() -> Vec<Page> {
    let root = Cli::command().disable_help_subcommand(true);
    let mut out = vec![render(&root, "git-evolv", None)];
    for sub in root.get_subcommands() {
        let name = format!("git-evolv-{}", sub.get_name());
        out.push(render(sub, &name, Some(sub.get_name())));
    }
    out
}

/// The page of `subcommand` (`None`: git-evolv's own).
pub fn page(subcommand: Option<&str>) -> Result<Page> {
    let want = match subcommand {
        None => "git-evolv".to_string(),
        Some(s) => format!("git-evolv-{}", s.trim_start_matches("git-evolv-")),
    };
    pages().into_iter().find(|p| p.name == want).ok_or_else(|| {
        Error::invalid(
            format!(
                "there is no git evolv subcommand '{}'",
                subcommand.unwrap_or_default()
            ),
            "`git evolv help` lists the subcommands",
        )
    })
}

fn render(cmd: &Command, name: &str, sub: Option<&str>) -> Page {
    let display = if name == "git-evolv" {
        "git evolv".to_string()
    } else {
        name.replacen("git-evolv-", "git evolv ", 1)
    };
    let cmd = cmd
        .clone()
        .name(name.to_string())
        .bin_name(display)
        .version(env!("CARGO_PKG_VERSION"));
    let man = clap_mangen::Man::new(cmd)
        .title(name.to_uppercase())
        .section("1")
        .source(format!("git-evolv {}", env!("CARGO_PKG_VERSION")))
        .manual("Git Evolv Manual");
    let mut roff = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = man.render(&mut roff);
    roff.extend_from_slice(extra_sections(sub).as_bytes());
    let roff = ascii_typography(&String::from_utf8_lossy(&roff)).into_bytes();
    Page {
        name: name.to_string(),
        roff,
    }
}

/// EXAMPLES, EXIT STATUS, ERROR CODES and SEE ALSO.
/// One entry of a tagged list: `tag` in bold, then `body` (already
/// escaped) indented below it.
fn push_tagged(s: &mut String, tag: &str, body: &str) {
    s.push_str(&format!(".TP\n.B {}\n{}\n", escape(tag), body));
}

fn extra_sections(sub: Option<&str>) -> String {
    let mut s = String::new();
    let examples = examples(sub);
    if !examples.is_empty() {
        s.push_str(".SH EXAMPLES\n");
        for (command, what) in examples {
            s.push_str(&format!(
                ".PP\n{}\n.RS 4\n.nf\n{}\n.fi\n.RE\n",
                escape(&what),
                escape(&command)
            ));
        }
    }
    s.push_str(".SH \"EXIT STATUS\"\n");
    for (code, meaning) in table(README, "## Exit codes", 2) {
        push_tagged(&mut s, &code[0], &escape(&meaning));
    }
    s.push_str(".SH \"ERROR CODES\"\nWith \\fB\\-\\-json\\fR a failure prints {\"success\": false, \"error\": {\"code\", \"message\", \"hint\"}}; the codes are stable:\n");
    for (code, meaning) in table(README, "Error codes are stable:", 3) {
        let body = format!("(exit {}) {}", escape(&code[1]), escape(&meaning));
        push_tagged(&mut s, &code[0], &body);
    }
    s.push_str(".SH \"SEE ALSO\"\n");
    let mut see: Vec<String> = vec!["git(1)".into()];
    if sub.is_some() {
        see.push("git-evolv(1)".into());
    }
    see.push("https://github.com/ (README.md, RELIABILITY.md in the source)".into());
    s.push_str(&format!("{}\n", escape(&see.join(", "))));
    s
}

/// The rows of the markdown table that follows `anchor`: the first
/// `columns - 1` cells (backticks removed) and the last cell.
fn table(readme: &str, anchor: &str, columns: usize) -> Vec<(Vec<String>, String)> {
    let Some(at) = readme.find(anchor) else {
        return Vec::new();
    };
    let clean = |c: &str| c.trim().replace('`', "").replace("**", "");
    readme[at..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim().trim_matches('|').split(" | ").collect();
            (cells.len() == columns).then(|| {
                let head = cells[..columns - 1].iter().map(|c| clean(c)).collect();
                (head, clean(cells[columns - 1]))
            })
        })
        .collect()
}

/// The help texts' typography as troff escapes every device has (`…` has
/// none on the ascii device man uses in the C locale, and troff warns).
fn ascii_typography(roff: &str) -> String {
    roff.replace('…', "...")
        .replace('→', "\\(->")
        .replace('—', "\\(em")
        .replace('–', "\\(en")
        .replace(['“', '”'], "\"")
        .replace(['‘', '’'], "'")
}

/// roff-escapes text: backslashes, and a leading `.` or `'`.
fn escape(text: &str) -> String {
    text.lines()
        .map(|l| {
            let l = l.replace('\\', "\\e").replace('-', "\\-");
            if l.starts_with('.') || l.starts_with('\'') {
                format!("\\&{l}")
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Each page's examples: (command, what it does); a subcommand without
/// its own gets one showing its short help, so no page lacks the section.
fn examples(sub: Option<&str>) -> Vec<(String, String)> {
    let own: Vec<(String, String)> = written_examples(sub)
        .iter()
        .map(|(c, w)| (c.to_string(), w.to_string()))
        .collect();
    match (own.is_empty(), sub) {
        (true, Some(s)) => vec![(
            format!("git evolv {s} -h"),
            "A summary of the options.".into(),
        )],
        _ => own,
    }
}

/// The manual's own examples: (subcommand, its examples as (command,
/// what it does)); `None` is the page of git evolv itself.
const WRITTEN_EXAMPLES: Examples = &[
    (
        None,
        &[
            (
                "git evolv propose --pattern 'getUserData' --replacement 'fetchUserData' --scope 'backend/**'\ngit evolv list\ngit evolv show patch_1763793123_3fa9c1\ngit evolv apply patch_1763793123_3fa9c1 --validate 'cargo test'\ngit evolv rollback patch_1763793123_3fa9c1\ngit evolv log",
                "A session: propose a rename, review it, land it after the tests pass, undo it, read the audit log.",
            ),
            ("git evolv demo", "A guided run in a throwaway repository."),
        ],
    ),
    (
        Some("propose"),
        &[
            (
                "git evolv propose -p 'getUserData' -r 'fetchUserData' -s 'backend/**'",
                "Propose a rename in every file under backend/.",
            ),
            (
                "git evolv propose --literal -p 'a.b(' -r 'a.c(' -m 'Call c instead of b'",
                "Replace text as written, with a summary.",
            ),
            (
                "git evolv propose -p '(?m)^use (\\w+);' -r 'use crate::$1;' -s '**/*.rs'",
                "Capture groups expand in the replacement.",
            ),
            (
                "cargo fmt && git evolv propose --from-worktree -- src/",
                "Propose what a formatter changed under src/, and put src/ back to HEAD.",
            ),
            (
                "git diff --binary main topic | git evolv propose --patch -",
                "Propose a patch (a git or diff -u diff, a format-patch series, an apply_patch envelope).",
            ),
        ],
    ),
    (
        Some("list"),
        &[
            ("git evolv list", "Every proposal with its status."),
            (
                "git evolv list --json | jq '.proposals[].patch_id'",
                "The ids, for scripts.",
            ),
        ],
    ),
    (
        Some("show"),
        &[(
            "git evolv show patch_1763793123_3fa9c1",
            "The proposal's summary and diff, paged and coloured like git show.",
        )],
    ),
    (
        Some("drop"),
        &[
            (
                "git evolv drop patch_1763793123_3fa9c1",
                "Remove one proposal.",
            ),
            ("git evolv drop --all", "Remove every proposal."),
        ],
    ),
    (
        Some("apply"),
        &[
            (
                "git evolv apply patch_1763793123_3fa9c1 --validate 'cargo test'",
                "Validate in the warm worktree, then land.",
            ),
            (
                "git evolv apply patch_1 patch_2 --batch --validate 'make check'",
                "Stack two proposals, validate once, land both or neither.",
            ),
            (
                "git evolv apply patch_1763793123_3fa9c1 --plan plan.json --dry-run",
                "Everything but moving the branch, under an execution plan.",
            ),
            (
                "git evolv apply patch_1763793123_3fa9c1 --paths 'src/**'",
                "Land the changes under src/ only; the rest stays pending.",
            ),
            (
                "git evolv apply patch_1763793123_3fa9c1 -i",
                "Choose hunk by hunk, with git add -p's keys.",
            ),
        ],
    ),
    (
        Some("rollback"),
        &[
            (
                "git evolv rollback patch_1763793123_3fa9c1",
                "A revert commit of what apply landed.",
            ),
            (
                "git evolv rollback patch_1763793123_3fa9c1 --strategy file_backup",
                "Put the files back as they were before the apply.",
            ),
        ],
    ),
    (
        Some("op"),
        &[(
            "git evolv op log -n 20\ngit evolv op show 3fa9c1d2 --json",
            "The last 20 operations (id, time, kind, actor, proposal); one, with every ref it moved and the paths it wrote.",
        )],
    ),
    (
        Some("undo"),
        &[
            (
                "git evolv undo --dry-run",
                "Every ref and path your newest operation's undo would change; nothing changes.",
            ),
            (
                "git evolv undo",
                "Undo your newest operation: a proposal goes, a drop comes back, an apply that nothing was built on and nobody pushed moves the branch back (else a revert commit, and why). Undo again to redo.",
            ),
            (
                "git evolv undo 3fa9c1d2\ngit evolv undo --to 3fa9c1d2",
                "Undo one named operation (someone else's too); undo every operation after one, newest first.",
            ),
        ],
    ),
    (
        Some("redo"),
        &[("git evolv redo", "Redo what the last undo undid.")],
    ),
    (
        Some("recover"),
        &[(
            "git evolv recover",
            "Finish or undo a landing that was killed.",
        )],
    ),
    (
        Some("log"),
        &[("git evolv log -n 5", "The five newest audit records.")],
    ),
    (
        Some("gc"),
        &[
            (
                "git evolv gc --older-than 30",
                "Drop proposals older than 30 days.",
            ),
            (
                "git evolv gc --worktrees",
                "Remove the warm validation worktrees.",
            ),
        ],
    ),
    (
        Some("plan"),
        &[
            (
                "git evolv plan schema > plan.schema.json",
                "The JSON Schema of an execution plan.",
            ),
            (
                "git evolv plan check plan.json",
                "Check a plan and print it with its defaults.",
            ),
        ],
    ),
    (
        Some("demo"),
        &[(
            "git evolv demo",
            "propose, show, apply, rollback in a throwaway repository.",
        )],
    ),
    (
        Some("lint"),
        &[
            (
                "git evolv lint 'feat(api): add the user endpoint'",
                "Lint one message.",
            ),
            (
                "git evolv lint --range origin/main..HEAD --format github",
                "Lint a pull request's commits as GitHub annotations.",
            ),
        ],
    ),
    (
        Some("hooks"),
        &[
            (
                "git evolv hooks install",
                "Install the commit-msg and pre-push hooks.",
            ),
            ("git evolv hooks status", "Which hooks are installed."),
        ],
    ),
    (
        Some("hook"),
        &[(
            "git evolv hook commit-msg .git/COMMIT_EDITMSG",
            "What the installed commit-msg hook runs.",
        )],
    ),
    (
        Some("check"),
        &[(
            "git evolv check --json",
            "Uncommitted files and the upstream, for scripts.",
        )],
    ),
    (
        Some("ask"),
        &[(
            "git evolv ask 'Deploy where?' --option 'staging: test cluster' --option 'prod: customers'",
            "Ask on the terminal; prints the chosen label.",
        )],
    ),
    (
        Some("completions"),
        &[
            (
                "git evolv completions bash > ~/.local/share/bash-completion/completions/git-evolv",
                "Completion for bash (git evolv <TAB> under git's completion, and git-evolv).",
            ),
            (
                "git evolv completions zsh > ~/.zfunc/_git-evolv",
                "Completion for zsh (with fpath+=~/.zfunc).",
            ),
        ],
    ),
    (
        Some("install-man"),
        &[
            (
                "git evolv install-man",
                "Install the pages next to the binary (~/.cargo/share/man/man1).",
            ),
            (
                "git evolv install-man --prefix ~/.local",
                "Install them under ~/.local/share/man/man1.",
            ),
        ],
    ),
    (
        Some("help"),
        &[("git evolv help apply", "The manual of git evolv apply.")],
    ),
    (
        Some("cat"),
        &[(
            "git evolv cat patch_1763793123_3fa9c1 src/main.rs --lines 10:20",
            "Lines 10 to 20 of a file as the proposal would leave it.",
        )],
    ),
    (
        Some("glob"),
        &[(
            "git evolv glob '**/*.rs'",
            "Rust files of the working tree, newest first.",
        )],
    ),
];

type Examples = &'static [(
    Option<&'static str>,
    &'static [(&'static str, &'static str)],
)];

/// The examples written for a page, if any.
fn written_examples(sub: Option<&str>) -> &'static [(&'static str, &'static str)] {
    WRITTEN_EXAMPLES
        .iter()
        .find(|(s, _)| *s == sub)
        .map_or(&[], |(_, examples)| examples)
}

/// `git evolv help [<subcommand>]`: the manual through `man -l -` when
/// stdout is a terminal (as `git help` opens man), else as plain text.
pub fn help(args: &HelpArgs, out: &Output) -> Result<()> {
    let page = page(args.subcommand.as_deref())?;
    if out.manual_on_terminal() && show_with_man(&page.roff) {
        return Ok(());
    }
    // No terminal, or no man: clap's long help, the same text.
    let mut cmd = Cli::command();
    cmd.build(); // so usage lines read `git evolv apply`, not `apply`
    let target = match args.subcommand.as_deref() {
        None => cmd.render_long_help(),
        Some(s) => match cmd.find_subcommand_mut(s) {
            Some(sub) => sub.render_long_help(),
            None => unreachable!("page() found it"),
        },
    };
    out.data(target.to_string().as_bytes());
    Ok(())
}

/// `git evolv <subcommand> --help` on a terminal opens the manual, as
/// `git commit --help` does (`-h` stays the short help). Returns whether a
/// page was shown; otherwise clap prints its help text.
pub fn long_help_from_args(args: &[std::ffi::OsString]) -> bool {
    if !std::io::stdout().is_terminal() {
        return false;
    }
    let mut sub = None;
    let mut help = false;
    let mut iter = args.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(a) = iter.next() {
        match a.as_ref() {
            "--" => break,
            "--help" => help = true,
            "-C" | "--color" => {
                iter.next();
            }
            a if a.starts_with('-') => {}
            a if sub.is_none() => sub = Some(a.to_string()),
            _ => {}
        }
    }
    help && page(sub.as_deref()).is_ok_and(|p| show_with_man(&p.roff))
}

/// Pipes `roff` into `man -l -`; false if man is missing or fails.
fn show_with_man(roff: &[u8]) -> bool {
    let Ok(mut child) = Process::new("man")
        .args(["-l", "-"])
        .stdin(Stdio::piped())
        .spawn()
    else {
        return false;
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(roff);
    }
    child.wait().is_ok_and(|s| s.success())
}

/// `git evolv install-man`: writes every page; returns where.
pub fn install(args: &InstallManArgs, out: &Output) -> Result<()> {
    let prefix = match &args.prefix {
        Some(p) => p.clone(),
        None => default_prefix()?,
    };
    let dir = prefix.join("share").join("man").join("man1");
    std::fs::create_dir_all(&dir).map_err(|e| Error::io("create", &dir, e))?;
    let pages = pages();
    for p in &pages {
        let path = dir.join(format!("{}.1", p.name));
        // Temp file + rename: a reader never sees half a page.
        let mut tmp =
            tempfile::NamedTempFile::new_in(&dir).map_err(|e| Error::io("create", &dir, e))?;
        tmp.write_all(&p.roff)
            .map_err(|e| Error::io("write", tmp.path(), e))?;
        let readable = std::os::unix::fs::PermissionsExt::from_mode(0o644);
        std::fs::set_permissions(tmp.path(), readable)
            .map_err(|e| Error::io("chmod", tmp.path(), e))?;
        tmp.persist(&path)
            .map_err(|e| Error::io("rename", &path, e.error))?;
    }
    if out.json {
        out.json_value(&serde_json::json!({
            "success": true,
            "directory": dir,
            "pages": pages.iter().map(|p| format!("{}.1", p.name)).collect::<Vec<_>>(),
        }));
    } else {
        out.status(&format!(
            "Installed {} manual pages in {}.",
            pages.len(),
            dir.display()
        ));
        if let Some(hint) = manpath_hint(&prefix) {
            out.status(&hint);
        }
    }
    Ok(())
}

/// The prefix of this binary: `<prefix>/bin/git-evolv` → `<prefix>`.
fn default_prefix() -> Result<PathBuf> {
    let exe =
        std::env::current_exe().map_err(|e| Error::io("locate", "the git-evolv binary", e))?;
    let exe = exe.canonicalize().unwrap_or(exe);
    exe.parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .ok_or_else(|| {
            Error::invalid(
                format!("cannot tell the install prefix of {}", exe.display()),
                "pass --prefix (pages go to PREFIX/share/man/man1)",
            )
        })
}

/// When man will not look in `<prefix>/share/man`: an explicit `MANPATH`
/// without it (and without the empty entry that adds the default path).
fn manpath_hint(prefix: &Path) -> Option<String> {
    let dir = prefix.join("share").join("man");
    let manpath = std::env::var("MANPATH").ok()?;
    let entries: Vec<&str> = manpath.split(':').collect();
    if entries.iter().any(|e| Path::new(e) == dir) {
        return None;
    }
    Some(format!(
        "MANPATH is set and does not name {d}: add it (export MANPATH=\"{d}:$MANPATH\") so `man git-evolv` finds the pages.",
        d = dir.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readme_tables_are_found() {
        assert!(table(README, "## Exit codes", 2).len() >= 4);
        let codes = table(README, "Error codes are stable:", 3);
        assert!(
            codes
                .iter()
                .any(|(c, _)| c[0] == "patch_not_found" && c[1] == "2")
        );
        assert!(codes.len() >= 20);
    }

    #[test]
    fn every_subcommand_has_a_page() {
        let pages = pages();
        for sub in Cli::command().get_subcommands() {
            let name = format!("git-evolv-{}", sub.get_name());
            let p = pages.iter().find(|p| p.name == name).expect(&name);
            let text = String::from_utf8_lossy(&p.roff);
            assert!(text.contains(".SH \"EXIT STATUS\""), "{name}");
        }
    }
}
