//! The `git evolv` command line: clap definitions, one file per
//! subcommand, rendering of outcomes for people (Display-like text) and
//! machines (`--json`, the same serde types the MCP server uses).

mod agent;
mod apply;
mod apply_interactive;
mod ask;
mod cat;
mod check;
mod checkpoints;
mod color;
mod completions;
mod demo;
mod drop;
mod flag_hint;
mod glob;
mod hook;
mod hooks;
mod inspect;
mod lint;
mod man;
mod man_examples;
mod mcp;
mod op;
mod open;
mod output;
mod pager;
mod plan;
mod pretty_json;
mod progress;
mod propose;
mod push;
mod recover;
mod rollback;
mod serve;
mod server_hook;
mod task;
mod test;
mod undo;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use color::ColorChoice;
use open::{CLI_ACTOR, HOOK_ACTOR};
pub(crate) use open::{drawing_session, session};
pub use output::Output;

use crate::error::{Error, Result};

use crate::ops::applying::apply::ApplyRequest;
use crate::ops::applying::recover::RecoverRequest;
use crate::ops::applying::rollback::RollbackRequest;
use crate::ops::checkpoints::record::CheckpointRequest;
use crate::ops::checkpoints::rewind::RewindRequest;
use crate::ops::drop::{DropRequest, GcRequest};
use crate::ops::operations::op_log::OpLogRequest;
use crate::ops::operations::undo::UndoRequest;
use crate::ops::proposing::edit::EditRequest;
use crate::ops::proposing::propose::ProposeRequest;
use crate::ops::reading::cat::CatRequest;
use crate::ops::reading::glob::GlobRequest;
use crate::ops::reading::inspect::{ListRequest, LogRequest, ShowRequest};
use crate::ops::server::remote::fetch::FetchRequest;
use crate::ops::server::remote::push::PushRequest;
use crate::ops::server::remote::status::StatusRequest;
use crate::ops::test::TestRequest;

/// git-evolv: propose an edit as a commit, validate it in an isolated
/// worktree, land it by fast-forward, undo it by revert.
#[derive(Debug, Parser)]
#[command(
    name = "git-evolv",
    bin_name = "git evolv",
    version,
    about,
    long_about = None,
    disable_help_subcommand = true
)]
pub struct Cli {
    /// Run as if git-evolv was started in PATH.
    #[arg(short = 'C', global = true, value_name = "PATH")]
    pub directory: Option<PathBuf>,
    /// Print machine-readable JSON on stdout.
    #[arg(long, global = true)]
    pub json: bool,
    /// When to colour output: auto (a terminal and no NO_COLOR), always,
    /// never (default: git config color.evolv, color.diff, color.ui).
    #[arg(long, global = true, value_enum, value_name = "WHEN")]
    pub color: Option<ColorChoice>,
    /// Never page the output (default: page long output on a terminal as
    /// git does: GIT_PAGER, pager.evolv, core.pager, PAGER, less).
    #[arg(long, global = true)]
    pub no_pager: bool,
    /// No progress and no status messages on stderr (errors still show).
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compute an edit and store it as a proposal; prints its diff, touches no file.
    Propose(Box<propose::ProposeArgs>),
    /// List proposals with their status.
    List,
    /// Print a proposal's diff.
    Show(inspect::ShowArgs),
    /// Remove proposals.
    Drop(drop::DropArgs),
    /// Validate a proposal in an isolated worktree and land it on the current branch.
    Apply(apply::ApplyArgs),
    /// Revert what apply landed, as a new commit.
    Rollback(rollback::RollbackArgs),
    /// Finish or undo a landing that was interrupted (every command does this first).
    Recover,
    /// Show the audit log, newest first.
    Log(inspect::LogArgs),
    /// Drop old proposals, remove idle validation worktrees, and remove verdict refs that are not commits.
    Gc(drop::GcArgs),
    /// The op log: every operation, its refs and paths (`op log`, `op show`).
    Op(op::OpArgs),
    /// Undo an operation of the op log (default: your newest), or all after one.
    Undo(undo::UndoArgs),
    /// Redo what the last undo undid.
    Redo(undo::RedoArgs),
    /// Record a checkpoint of the whole work tree (agents' hooks do this).
    Checkpoint(checkpoints::CheckpointArgs),
    /// List the checkpoints, newest first, with what each changed.
    Checkpoints(checkpoints::CheckpointsArgs),
    /// Put the work tree back to a checkpoint (an id, ~N turns back, a session's start).
    Rewind(checkpoints::RewindArgs),
    /// Execution plans: print their JSON Schema, check a plan file.
    Plan(plan::PlanArgs),
    /// A guided propose → show → apply → rollback run in a throwaway repository.
    Demo,
    /// Lint commit messages (Conventional Commits): a message, a file, stdin or a range.
    Lint(lint::LintArgs),
    /// Install, remove or inspect git-evolv's git hooks (commit-msg, pre-push).
    Hooks(hooks::HooksArgs),
    /// Entry points of the installed git hooks (called by the shims).
    Hook(hook::HookArgs),
    /// Report uncommitted files, the upstream, and commits ahead and behind.
    Check,
    /// Print a file as it is in a proposal's tree (or HEAD's), optionally numbered.
    Cat(cat::CatArgs),
    /// Run the validation command on commits or proposals; verdicts are cached in refs.
    Test(test::TestArgs),
    /// List working-tree files matching a glob, newest first (honours .gitignore).
    Glob(glob::GlobArgs),
    /// Ask a single- or multi-select question on the terminal; prints the chosen labels.
    Ask(ask::AskArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::CompletionsArgs),
    /// Install the manual pages under PREFIX/share/man (default: next to this binary).
    InstallMan(man::InstallManArgs),
    /// Show the manual of git-evolv or of a subcommand.
    Help(man::HelpArgs),
    /// Serve this repository to AI assistants: an MCP server over stdio.
    Mcp(mcp::McpArgs),
    /// Background tasks (`apply --background`): show, wait for, list, cancel.
    Task(task::TaskArgs),
    /// Serve the review page on 127.0.0.1: proposals, live updates, comments, apply.
    Serve(serve::ServeArgs),
    /// Push proposals to a server's landing queue (refs/for/<branch>); prints its verdict.
    Push(push::PushArgs),
    /// Fetch a remote's refs/evolv/* into refs/evolv/remotes/<remote>/.
    Fetch(push::FetchArgs),
    /// What came of a proposal, here and on remotes (--remote fetches one first).
    Status(push::StatusArgs),
    /// Checkpoint every turn of a coding agent through its own hooks (install, status, uninstall).
    Agent(agent::AgentArgs),
}

impl Command {
    /// The subcommand's name, as in `pager.evolv.<name>`.
    fn name(&self) -> String {
        use clap::CommandFactory;
        let id = match self {
            Command::Propose(_) => "propose",
            Command::List => "list",
            Command::Show(_) => "show",
            Command::Drop(_) => "drop",
            Command::Apply(_) => "apply",
            Command::Rollback(_) => "rollback",
            Command::Recover => "recover",
            Command::Log(_) => "log",
            Command::Cat(_) => "cat",
            Command::Test(_) => "test",
            Command::Glob(_) => "glob",
            Command::Gc(_) => "gc",
            Command::Op(_) => "op",
            Command::Undo(_) => "undo",
            Command::Redo(_) => "redo",
            Command::Checkpoint(_) => "checkpoint",
            Command::Checkpoints(_) => "checkpoints",
            Command::Rewind(_) => "rewind",
            Command::Plan(_) => "plan",
            Command::Demo => "demo",
            Command::Lint(_) => "lint",
            Command::Hooks(_) => "hooks",
            Command::Hook(_) => "hook",
            Command::Check => "check",
            Command::Ask(_) => "ask",
            Command::Completions(_) => "completions",
            Command::InstallMan(_) => "install-man",
            Command::Help(_) => "help",
            Command::Mcp(_) => "mcp",
            Command::Task(_) => "task",
            Command::Serve(_) => "serve",
            Command::Push(_) => "push",
            Command::Fetch(_) => "fetch",
            Command::Status(_) => "status",
            Command::Agent(_) => "agent",
        };
        // Checked in debug builds only: building clap's tree of every
        // command a second time was 15% of a short command's instructions.
        debug_assert!(Cli::command().find_subcommand(id).is_some(), "{id}");
        id.to_string()
    }

    /// Long output, paged on a terminal by default (as `git log`, `git show`).
    fn pages_by_default(&self) -> bool {
        match self {
            Command::Propose(_) | Command::List | Command::Show(_) | Command::Log(_) => true,
            Command::Lint(a) => a.range.is_some(),
            _ => false,
        }
    }
}

/// Parses the arguments, runs the command and returns the exit code
/// (0 success, 1 the answer is no, 2 bad input or error).
pub fn run() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(hook) = hook::installed_as(&args) {
        return run_installed_hook(hook);
    }
    // An agent's hook: before clap and any configuration (never exit 2).
    if let Some(code) = agent::from_args(&args) {
        return ExitCode::from(code);
    }
    if man::long_help_from_args(&args) {
        return ExitCode::SUCCESS;
    }
    let cli = match parse(args) {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e),
    };
    let json = cli.json
        || matches!(&cli.command, Command::Lint(a) if a.format == Some(lint::LintFormat::Json));
    let name = cli.command.name();
    let flags = output::Flags {
        json,
        color: cli.color,
        quiet: cli.quiet,
        no_pager: cli.no_pager,
        subcommand: &name,
        pages_by_default: cli.command.pages_by_default(),
    };
    let out = match output::config_lookup(cli.directory.as_deref(), &flags)
        .and_then(|config| Output::configure(&flags, &config))
    {
        Ok(out) => out,
        Err(e) => {
            // A bad colour or pager setting: said plainly, as git does.
            Output::new(json, ColorChoice::Never).error(&e);
            return ExitCode::from(e.exit_code());
        }
    };
    let result = dispatch(&cli, &out).map_err(flag_hint::with_flag_hint);
    // Output that never reached stdout (a full disk) is an error, whatever
    // the command said; a closed pipe (`| head`, a pager quit early) is not.
    let result = match out.take_write_error() {
        Some(e) => Err(e),
        None => result,
    };
    let code = match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            out.error(&e);
            ExitCode::from(e.exit_code())
        }
    };
    // Errors above went into the pager too; wait for it as git does.
    pager::finish();
    code
}

/// `Cli::try_parse_from`, without freeing clap's tree of every command and
/// argument afterwards: the process ends soon, and freeing it cost about 5%
/// of a short command's instructions (an undo of a propose, issue 26 item 7).
fn parse(args: Vec<std::ffi::OsString>) -> std::result::Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let command = Box::leak(Box::new(Cli::command()));
    command
        .try_get_matches_from_mut(args)
        .and_then(|matches| Cli::from_arg_matches(&matches))
}

/// The `git-evolv-hook` binary (src/bin/git-evolv-hook.rs), which `hooks
/// install` copies into the hooks folder, given its command line: run by
/// git as `commit-msg FILE` or `pre-push REMOTE URL` (or as pre-commit's
/// `commit-msg.legacy`), or by hand as `git-evolv-hook commit-msg FILE`.
/// Only the hooks: no clap, no libgit2 repository, no recovery (issue 14
/// item 5). Returns the exit code.
pub fn run_hook_binary(args: &[std::ffi::OsString]) -> u8 {
    if let Some(hook) = hook::installed_as(args) {
        return installed_hook(hook, HOOK_ACTOR);
    }
    let rest = args.get(1..).unwrap_or_default();
    if let Some(hook) = hook::installed_as(rest) {
        return installed_hook(hook, HOOK_ACTOR);
    }
    let out = Output::new(false, ColorChoice::Never);
    if matches!(
        rest.first().and_then(|a| a.to_str()),
        Some("--version" | "-V")
    ) {
        out.line(&format!(
            "{} {}",
            crate::hooks::binary::NAME,
            crate::hooks::binary::VERSION
        ));
        return 0;
    }
    let error = Error::invalid(
        format!(
            "{} runs git's commit-msg and pre-push hooks; it was run as `{}`",
            crate::hooks::binary::NAME,
            args.iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" ")
        ),
        "git runs it as `commit-msg FILE` or `pre-push REMOTE URL` once `git evolv hooks install` \
         copied it; by hand: `git-evolv-hook commit-msg FILE`",
    );
    out.error(&error);
    error.exit_code()
}

/// git ran the binary itself as a hook (the `git-evolv-hook` copy that
/// `hooks install` puts in the hooks folder, or, from older versions, a
/// link to `git-evolv` under the hook's name; issue 14 item 5): straight
/// to the hook, without the command-line parser, as `git-evolv hook
/// <name>` would run it.
fn run_installed_hook(hook: Result<hook::HookArgs>) -> ExitCode {
    ExitCode::from(installed_hook(hook, CLI_ACTOR))
}

/// Runs `hook` for `actor`: `hook` when the hook binary runs it.
fn installed_hook(hook: Result<hook::HookArgs>, actor: &str) -> u8 {
    // The hooks write findings to stderr, uncoloured, and never page: the
    // colour and pager settings are not read (a commit pays for one read
    // of the configuration, the hook's own).
    let out = Output::new(false, ColorChoice::Never);
    let result = hook.and_then(|args| {
        if hook::reentered(&args) {
            return Ok(0);
        }
        let dir = std::env::current_dir().map_err(|e| Error::io("read", "current directory", e))?;
        hook::run(&dir, &args, &out, actor)
    });
    match result {
        Ok(code) => code,
        Err(e) => {
            out.error(&e);
            e.exit_code()
        }
    }
}

/// A command line clap refused: `--help` and `--version` print as clap
/// prints them; a real usage error is the JSON error object under `--json`
/// (a script parses stdout either way), and a pattern or replacement that
/// starts with `-` gets the `--pattern=…` tip (#16 item 20).
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = args.iter().take_while(|a| a.as_str() != "--");
    let json = options
        .clone()
        .any(|a| a == "--json" || a == "--format=json");
    let mut hint = "run `git evolv <command> --help` for the usage".to_string();
    let dash_tip = dash_value_tip(&args);
    if let Some(tip) = &dash_tip {
        hint = tip.clone();
    }
    let mut message = e.render().to_string();
    if dash_tip.is_some() {
        // clap's own tip (`use '-- --old-flag'`) would make the value a
        // pathspec of `propose --from-worktree`, not the option's value.
        message = message
            .lines()
            .filter(|l| !l.trim_start().starts_with("tip: to pass '"))
            .collect::<Vec<_>>()
            .join("\n");
    }
    let message = message
        .trim_start_matches("error: ")
        .split("\n\nFor more information")
        .next()
        .unwrap_or_default()
        .trim_end()
        .to_string();
    let error = Error::invalid(message, hint);
    Output::new(json, ColorChoice::Never).error(&error);
    ExitCode::from(2)
}

/// `-p '--old-flag'`: clap reads the value as an option. The way out is
/// the `=` form, which clap never splits.
fn dash_value_tip(args: &[String]) -> Option<String> {
    let names = [
        ("-p", "--pattern"),
        ("--pattern", "--pattern"),
        ("-r", "--replacement"),
        ("--replacement", "--replacement"),
        ("-m", "--message"),
        ("--message", "--message"),
        ("-s", "--scope"),
        ("--scope", "--scope"),
    ];
    args.windows(2).find_map(|pair| {
        let (flag, long) = names.iter().find(|(short, _)| *short == pair[0])?;
        let value = &pair[1];
        (value.starts_with('-') && value.len() > 1).then(|| {
            format!(
                "a value that starts with '-' is read as an option after {flag}: write {long}='{value}'"
            )
        })
    })
}

/// Runs the command; `Ok` carries the exit code of a command that rendered
/// its own outcome (an apply that landed some proposals, then failed).
fn dispatch(cli: &Cli, out: &Output) -> Result<u8> {
    if let Some(dir) = &cli.directory {
        // As `git -C DIR` does: change into DIR first, so every relative
        // path argument (`--plan plan.json`, `lint --file msg`) is read
        // from there, and a missing DIR is named (#16 items 13 and 20).
        std::env::set_current_dir(dir).map_err(|e| Error::io("cannot change to", dir, e))?;
    }
    match &cli.command {
        Command::Demo => return demo::run(out).map(|()| 0),
        Command::Completions(args) => return completions::run(args, out).map(|()| 0),
        Command::InstallMan(args) => return man::install(args, out).map(|()| 0),
        Command::Help(args) => return man::help(args, out).map(|()| 0),
        Command::Plan(args) => return plan::run(args, out).map(|()| 0),
        Command::Ask(args) => return ask::run(args, out),
        Command::Propose(args) if propose::wants_schema(args) => {
            propose::print_schema(out);
            return Ok(0);
        }
        _ => {}
    }
    let dir = std::env::current_dir().map_err(|e| Error::io("read", "current directory", e))?;
    // These open no repository (their requests open `Open::NoRepository`
    // sessions): lint works outside one (a message from an argument or
    // stdin) and stays fast on the hook path; hooks and check go through
    // git itself (SHA-256 repositories). The servers open a session per call.
    match &cli.command {
        Command::Lint(args) => return lint::run(&dir, args, out),
        Command::Hook(args) => return hook::run(&dir, args, out, CLI_ACTOR),
        Command::Hooks(args) => return hooks::run(&dir, args, out).map(|()| 0),
        Command::Agent(args) => return agent::run(&dir, args, out),
        Command::Check => return check::run(&dir, out).map(|()| 0),
        Command::Mcp(args) => return mcp::run(&dir, args, out).map(|()| 0),
        Command::Serve(args) => return serve::run(&dir, args, out).map(|()| 0),
        _ => {}
    }
    run_command(cli, &dir, out)
}

/// The commands that work on an open repository.
fn run_command(cli: &Cli, dir: &Path, out: &Output) -> Result<u8> {
    match &cli.command {
        Command::Propose(args) if propose::edits(args) => {
            return propose::run(&drawing_session::<EditRequest>(dir, out)?, args, out);
        }
        Command::Propose(args) => {
            return propose::run(&drawing_session::<ProposeRequest>(dir, out)?, args, out);
        }
        Command::List => inspect::list(&session::<ListRequest>(dir, out)?, out),
        Command::Show(args) => inspect::show(&session::<ShowRequest>(dir, out)?, args, out),
        Command::Drop(args) => drop::run(&session::<DropRequest>(dir, out)?, args, out),
        Command::Apply(args) => {
            return apply::run(&drawing_session::<ApplyRequest>(dir, out)?, args, out);
        }
        Command::Task(args) => return task::run(dir, args, out),
        Command::Rollback(args) => {
            rollback::run(&drawing_session::<RollbackRequest>(dir, out)?, args, out)
        }
        Command::Log(args) => inspect::log(&session::<LogRequest>(dir, out)?, args, out),
        Command::Cat(args) => cat::run(&session::<CatRequest>(dir, out)?, args, out),
        Command::Test(args) => return test::run(&session::<TestRequest>(dir, out)?, args, out),
        Command::Gc(args) => drop::gc(&session::<GcRequest>(dir, out)?, args, out),
        Command::Op(args) => op::run(&session::<OpLogRequest>(dir, out)?, args, out),
        Command::Undo(args) => undo::undo(&drawing_session::<UndoRequest>(dir, out)?, args, out),
        Command::Redo(args) => undo::redo(&drawing_session::<UndoRequest>(dir, out)?, args, out),
        Command::Checkpoint(a) => {
            checkpoints::checkpoint(&session::<CheckpointRequest>(dir, out)?, a, out)
        }
        Command::Checkpoints(a) => checkpoints::checkpoints(dir, a, out),
        Command::Rewind(a) => {
            checkpoints::rewind(&session::<RewindRequest>(dir, out)?, dir, a, out)
        }
        Command::Glob(args) => glob::run(&session::<GlobRequest>(dir, out)?, dir, args, out),
        Command::Recover => recover::run(&session::<RecoverRequest>(dir, out)?, out),
        Command::Push(args) => return push::push(&session::<PushRequest>(dir, out)?, args, out),
        Command::Fetch(args) => push::fetch(&session::<FetchRequest>(dir, out)?, args, out),
        Command::Status(args) => push::status(&session::<StatusRequest>(dir, out)?, args, out),
        Command::Demo
        | Command::Plan(_)
        | Command::Ask(_)
        | Command::Lint(_)
        | Command::Hook(_)
        | Command::Hooks(_)
        | Command::Agent(_)
        | Command::Completions(_)
        | Command::InstallMan(_)
        | Command::Help(_)
        | Command::Mcp(_)
        | Command::Check
        | Command::Serve(_) => unreachable!("handled above"),
    }
    .map(|()| 0)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_command_line_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }

    /// ops name request fields (what MCP and the web page show); the CLI
    /// adds its flags, keeping the code and the message (#10 item 2).
    #[test]
    fn ops_errors_name_fields_and_the_cli_adds_its_flags() {
        use crate::error::Error;
        let field = Error::invalid_field("lines", "lines 3:2 is not a range of lines", "give A:B");
        assert!(!field.hint().contains("--"));
        let cli = super::flag_hint::with_flag_hint(field);
        assert_eq!(cli.hint(), "give A:B (on the command line: --lines)");
        assert_eq!(cli.code(), "invalid_input");
        let conflict = Error::Conflict {
            patch_id: "patch_1_ab".into(),
            paths: vec!["a.txt".into()],
            against: "the current HEAD".into(),
            operation: "rollback",
        };
        assert!(!conflict.hint().contains("--"), "{}", conflict.hint());
        let message = conflict.to_string();
        let cli = super::flag_hint::with_flag_hint(conflict);
        assert!(
            cli.hint()
                .ends_with("(on the command line: --strategy file_backup)")
        );
        assert_eq!((cli.code(), cli.exit_code()), ("conflict", 1));
        assert_eq!(cli.to_string(), message);
        assert_eq!(cli.to_body().paths, Some(vec!["a.txt".to_string()]));
    }
}
