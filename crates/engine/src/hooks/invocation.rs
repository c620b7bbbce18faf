//! What git command a hook runs under, for what git does not tell hooks:
//! the options of the `git commit` (`--amend`, `-v`, `-m`, `--cleanup`) or
//! `git push` (`--dry-run`) above us, read from the process table (Linux
//! `/proc`; elsewhere nothing is known and callers fall back to what is
//! safe), and the operation in progress in the git directory (rebase,
//! merge, cherry-pick, revert). Only file reads: no git, no libgit2.

use std::path::Path;

/// The parts of a `git commit` command line that change how its message
/// is cleaned and how a rejected commit is retried.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommitArgs {
    pub amend: bool,
    pub verbose: bool,
    /// The message came from `-m`, `-F` or `-C` (no editor unless `-e`).
    pub message_given: bool,
    /// `-e` / `--edit`.
    pub edit: bool,
    /// `--no-edit`.
    pub no_edit: bool,
    /// `--cleanup=<mode>`.
    pub cleanup: Option<String>,
}

impl CommitArgs {
    /// Whether git opened an editor for the message.
    pub fn editor(&self) -> bool {
        !self.no_edit && (self.edit || !self.message_given)
    }

    /// Parses the arguments after `commit`.
    pub fn parse(args: &[String]) -> CommitArgs {
        let mut c = CommitArgs::default();
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--" => break,
                "--amend" => c.amend = true,
                "--verbose" => c.verbose = true,
                "--edit" => c.edit = true,
                "--no-edit" => c.no_edit = true,
                "--message" | "--file" | "--reuse-message" => {
                    c.message_given = true;
                    it.next();
                }
                "--cleanup" => c.cleanup = it.next().cloned(),
                "--reedit-message" => {
                    c.edit = true;
                    it.next();
                }
                long if long.starts_with("--") => {
                    if let Some(v) = long.strip_prefix("--cleanup=") {
                        c.cleanup = Some(v.to_string());
                    } else if ["--message=", "--file=", "--reuse-message="]
                        .iter()
                        .any(|p| long.starts_with(p))
                    {
                        c.message_given = true;
                    } else if long.starts_with("--reedit-message=") {
                        c.edit = true;
                    }
                }
                short if short.starts_with('-') && short.len() > 1 => {
                    // A cluster of short options; m, F, C, c take a value
                    // (the rest of the cluster, or the next argument).
                    for (i, ch) in short[1..].char_indices() {
                        match ch {
                            'v' => c.verbose = true,
                            'e' => c.edit = true,
                            'm' | 'F' | 'C' | 'c' => {
                                if ch == 'c' {
                                    c.edit = true;
                                } else {
                                    c.message_given = true;
                                }
                                if i + 2 >= short.len() {
                                    it.next();
                                }
                                break;
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        c
    }
}

/// The arguments of the nearest `git <subcommand>` above this process
/// (after the subcommand), if it can be found. Run on every commit: the
/// first parent (git itself, when git runs the hook) comes from
/// `getppid`, and each `/proc` file is read in one go.
pub fn parent_git_args(subcommand: &str) -> Option<Vec<String>> {
    let mut pid = std::os::unix::process::parent_id();
    for level in 0..6 {
        if level > 0 {
            pid = parent_pid(pid)?;
        }
        let cmdline = read_proc(&format!("/proc/{pid}/cmdline"))?;
        let args: Vec<String> = cmdline
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let dashed = format!("git-{subcommand}");
        let at = args
            .iter()
            .position(|a| a == subcommand || a.ends_with(&dashed));
        let is_git = args
            .first()
            .is_some_and(|a| a.ends_with("git") || a.ends_with(&dashed));
        if let (Some(at), true) = (at, is_git) {
            return Some(
                args[at + 1..]
                    .iter()
                    .filter(|a| !a.is_empty())
                    .cloned()
                    .collect(),
            );
        }
    }
    None
}

/// A `/proc` file, which reports its size as 0: read into a buffer big
/// enough for most in one call (`fs::read` would probe in small steps).
fn read_proc(path: &str) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut buf = Vec::with_capacity(4096);
    std::fs::File::open(path)
        .and_then(|mut f| f.read_to_end(&mut buf))
        .ok()?;
    Some(buf)
}

fn parent_pid(pid: u32) -> Option<u32> {
    let stat = read_proc(&format!("/proc/{pid}/stat"))?;
    let stat = String::from_utf8_lossy(&stat);
    // `pid (comm) state ppid …`; comm may hold spaces and parentheses.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Whether the `git push` running this hook is `--dry-run` (`-n`).
pub fn push_is_dry_run() -> bool {
    parent_git_args("push").is_some_and(|args| {
        args.iter()
            .take_while(|a| *a != "--")
            .any(|a| a == "--dry-run" || a == "-n")
    })
}

/// The operation in progress in a git directory, which decides how a
/// rejected commit is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InProgress {
    None,
    Rebase,
    Merge,
    /// `sequence`: more picks follow (`git cherry-pick --continue`).
    CherryPick {
        sequence: bool,
    },
    Revert {
        sequence: bool,
    },
}

impl InProgress {
    /// Reads the state files git keeps in `git_dir`.
    pub fn of(git_dir: &Path) -> InProgress {
        let sequence = git_dir.join("sequencer/todo").is_file();
        if git_dir.join("rebase-merge").is_dir() || git_dir.join("rebase-apply").is_dir() {
            InProgress::Rebase
        } else if git_dir.join("MERGE_HEAD").is_file() {
            InProgress::Merge
        } else if git_dir.join("CHERRY_PICK_HEAD").is_file() {
            InProgress::CherryPick { sequence }
        } else if git_dir.join("REVERT_HEAD").is_file() {
            InProgress::Revert { sequence }
        } else {
            InProgress::None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> CommitArgs {
        CommitArgs::parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn reads_the_commit_options_that_matter() {
        let c = parse(&["-q", "-m", "#42 fix login"]);
        assert!(c.message_given && !c.editor());
        let c = parse(&["-am", "x", "--cleanup=verbatim"]);
        assert!(c.message_given && !c.editor());
        assert_eq!(c.cleanup.as_deref(), Some("verbatim"));
        let c = parse(&["--amend", "-v"]);
        assert!(c.amend && c.verbose && c.editor());
        let c = parse(&["-F", "msg", "-e", "--cleanup", "strip"]);
        assert!(c.editor() && c.cleanup.as_deref() == Some("strip"));
        let c = parse(&["-vm", "x"]);
        assert!(c.verbose && c.message_given);
        let c = parse(&["--no-edit", "--amend"]);
        assert!(!c.editor());
        let c = parse(&["--message=x", "--", "-v"]);
        assert!(c.message_given && !c.verbose);
    }
}
