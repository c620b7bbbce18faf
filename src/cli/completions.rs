//! `git evolv completions <shell>`: completion scripts generated from the
//! clap definitions (`clap_complete`). For bash the script also defines
//! `_git_evolv`, the function git's own bash completion calls for
//! `git evolv <TAB>`: it completes subcommands, their flags, and proposal
//! ids read from `refs/evolv/` (pending ones for `apply`, applied ones for
//! `rollback`, all of them for `show` and `drop`).

use clap::{Args, Command, CommandFactory, ValueEnum};
use clap_complete::Shell;

use super::{Cli, Output};
use crate::error::Result;

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to print a completion script for.
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

/// The shells clap_complete supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

impl CompletionShell {
    fn clap(self) -> Shell {
        match self {
            CompletionShell::Bash => Shell::Bash,
            CompletionShell::Zsh => Shell::Zsh,
            CompletionShell::Fish => Shell::Fish,
            CompletionShell::Elvish => Shell::Elvish,
            CompletionShell::Powershell => Shell::PowerShell,
        }
    }
}

pub fn run(args: &CompletionsArgs, out: &Output) -> Result<()> {
    out.data(&script(args.shell));
    Ok(())
}

/// The completion script for `shell`, for the `git-evolv` command (and,
/// for bash, `git evolv` under git's completion).
pub fn script(shell: CompletionShell) -> Vec<u8> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell.clap(), &mut cmd, "git-evolv", &mut buf);
    if shell == CompletionShell::Bash {
        buf.extend_from_slice(git_bash(&Cli::command()).as_bytes());
    }
    buf
}

/// The visible subcommands' names.
pub fn subcommand_names(cmd: &Command) -> Vec<String> {
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| s.get_name().to_string())
        .collect()
}

/// A subcommand's long flags as git's completion lists them (`--x=` when
/// the flag takes a value), global ones included.
fn flags(cmd: &Command, sub: &Command) -> String {
    let mut words: Vec<String> = sub
        .get_arguments()
        .chain(cmd.get_arguments().filter(|a| a.is_global_set()))
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| {
            let long = a.get_long()?;
            let takes_value = a.get_action().takes_values();
            Some(format!("--{long}{}", if takes_value { "=" } else { "" }))
        })
        .collect();
    words.push("--help".into());
    words.sort();
    words.dedup();
    words.join(" ")
}

/// `_git_evolv` for git's bash completion (git-completion.bash calls
/// `_git_<command>` for `git <command> <TAB>`).
fn git_bash(cmd: &Command) -> String {
    let subs = subcommand_names(cmd).join(" ");
    let mut cases = String::new();
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        cases.push_str(&format!(
            "\t{})\n\t\tcase \"$cur\" in\n\t\t--*) __gitcomp \"{}\" ;;\n\t\t*) {} ;;\n\t\tesac\n\t\t;;\n",
            sub.get_name(),
            flags(cmd, sub),
            positional(sub.get_name())
        ));
    }
    format!(
        r#"
# git's bash completion (git-completion.bash) calls this for `git evolv <TAB>`.
__git_evolv_ids ()
{{
	local kind="$1" applied
	applied="$(__git for-each-ref --format='%(refname:strip=3)' refs/evolv/applied/ 2>/dev/null)"
	case "$kind" in
	applied) printf '%s\n' "$applied" ;;
	pending) __git for-each-ref --format='%(refname:strip=3)' refs/evolv/proposals/ 2>/dev/null |
			grep -vxF -e "" ${{applied:+-e "$applied"}} ;;
	*) __git for-each-ref --format='%(refname:strip=3)' refs/evolv/proposals/ 2>/dev/null ;;
	esac
}}

_git_evolv ()
{{
	local subcommands="{subs}"
	local subcommand="$(__git_find_on_cmdline "$subcommands")"
	if [ -z "$subcommand" ]; then
		case "$cur" in
		--*) __gitcomp "--color= --json --no-pager --quiet --help --version" ;;
		*) __gitcomp "$subcommands" ;;
		esac
		return
	fi
	case "$subcommand" in
{cases}	esac
}}
"#
    )
}

/// What a subcommand's positional arguments complete to.
fn positional(sub: &str) -> &'static str {
    match sub {
        "apply" => r#"__gitcomp_nl "$(__git_evolv_ids pending)""#,
        "rollback" => r#"__gitcomp_nl "$(__git_evolv_ids applied)""#,
        "show" | "drop" => r#"__gitcomp_nl "$(__git_evolv_ids all)""#,
        "completions" => r#"__gitcomp "bash zsh fish elvish powershell""#,
        "help" | "install-man" => r#"__gitcomp "$subcommands""#,
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shell_gets_a_script_naming_every_subcommand() {
        let names = subcommand_names(&Cli::command());
        for shell in CompletionShell::value_variants() {
            let text = String::from_utf8(script(*shell)).unwrap();
            for name in &names {
                assert!(text.contains(name.as_str()), "{shell:?} lacks {name}");
            }
        }
    }
}
