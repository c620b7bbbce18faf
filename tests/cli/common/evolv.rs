//! Running `git-evolv` in a [`TestRepo`]: directly, through git (as
//! `git evolv`), in the background, for a transcript, or to propose.

use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::Value;

use super::{BIN, Error, Run, TestRepo, sealed, strings_of};

impl TestRepo {
    /// Runs `git-evolv` with `args` in the repository.
    pub fn evolv(&self, args: &[&str]) -> Run {
        self.evolv_env(args, &[])
    }

    /// `git-evolv args` in the repository, to be started by the caller
    /// (off the test clock).
    pub fn evolv_cmd(&self, args: &[&str]) -> Command {
        let mut cmd = sealed(BIN, self.home());
        cmd.args(args).current_dir(self.path());
        cmd
    }

    /// Starts `git-evolv args` in the background, its output piped; see
    /// [`Run::wait`].
    #[track_caller]
    pub fn spawn_evolv(&self, args: &[&str]) -> Child {
        self.evolv_cmd(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("git-evolv starts")
    }

    /// Runs `git-evolv` with `args` and the extra environment `env`.
    pub fn evolv_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = self.evolv_cmd(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        if let Some(minute) = self.minute.get() {
            self.minute.set(Some(minute + 1));
            let time = 1_700_000_000 + 60 * (minute + 1);
            cmd.env("GIT_EVOLV_TEST_TIME", time.to_string());
        }
        Run::of(cmd).named(format!("git evolv {}", args.join(" ")))
    }

    /// `git -c k=v … <args>` with git-evolv's directory first on PATH, so
    /// that `git evolv` (and a hook git runs) finds this build.
    pub fn git_with_evolv(&self, config: &[&str], args: &[&str]) -> Command {
        let bin_dir = Path::new(BIN).parent().expect("the binary's directory");
        let mut path = vec![bin_dir.to_path_buf()];
        path.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let mut cmd = sealed("git", self.home());
        cmd.env("PATH", std::env::join_paths(path).expect("a PATH"));
        for c in config {
            cmd.args(["-c", c]);
        }
        cmd.args(args).current_dir(self.path());
        cmd
    }

    /// `git -c k=v … evolv <args>`: git-evolv started by git itself, so it
    /// sees the settings exactly as a user's `git -c` hands them over
    /// (`GIT_CONFIG_PARAMETERS`).
    pub fn git_evolv(&self, config: &[&str], args: &[&str]) -> Run {
        let mut all = vec!["evolv"];
        all.extend_from_slice(args);
        Run::of(self.git_with_evolv(config, &all)).named(format!("git evolv {}", args.join(" ")))
    }

    /// The transcript of `git evolv args` (see [`Run::transcript`]).
    pub fn transcript(&self, args: &[&str]) -> String {
        self.evolv(args).transcript()
    }

    /// The transcripts of several commands, one after the other.
    pub fn transcripts(&self, commands: &[&[&str]]) -> String {
        commands.iter().map(|args| self.transcript(args)).collect()
    }

    /// `propose --json --pattern … --replacement … extra…`, its run.
    pub fn propose_run(&self, pattern: &str, replacement: &str, extra: &[&str]) -> Run {
        let mut args = vec![
            "propose",
            "--json",
            "--pattern",
            pattern,
            "--replacement",
            replacement,
        ];
        args.extend_from_slice(extra);
        self.evolv(&args)
    }

    /// Proposes via `--json` and returns the patch id.
    pub fn try_propose(
        &self,
        pattern: &str,
        replacement: &str,
        extra: &[&str],
    ) -> Result<String, Error> {
        let run = self.propose_run(pattern, replacement, extra);
        run.try_success()?;
        run.try_json_str("/patch_id")
    }

    /// Proposes via `--json` and returns the patch id.
    #[track_caller]
    pub fn propose(&self, pattern: &str, replacement: &str, extra: &[&str]) -> String {
        self.try_propose(pattern, replacement, extra)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// `apply --json id --validate script`, its run.
    pub fn apply_validating(&self, id: &str, script: &str) -> Run {
        self.evolv(&["apply", "--json", id, "--validate", script])
    }

    /// Lands `id` under a plan whose rollback strategy is `file_backup`
    /// (its rollback restores the files rather than reverting).
    #[track_caller]
    pub fn apply_with_file_backup(&self, id: &str) {
        let plan = r#"{"dry_run": false, "rollback": {"strategy": "file_backup"}}"#;
        let plan = self.home_file("file_backup.json", plan);
        self.evolv(&["apply", id, "--plan", &plan]).ok();
    }

    /// The `hooks status --json` entry of the hook `name`.
    #[track_caller]
    pub fn hook_status(&self, name: &str) -> Value {
        let run = self.evolv(&["hooks", "status", "--json"]);
        run.ok();
        run.json()["hooks"]
            .as_array()
            .expect("a list of hooks")
            .iter()
            .find(|h| h["name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {}", run.stdout))
            .clone()
    }

    /// Runs `hooks <action> --json` (install, uninstall), which must
    /// succeed, and returns each hook's `change` (commit-msg first).
    #[track_caller]
    pub fn hook_changes(&self, action: &str) -> Vec<String> {
        let run = self.evolv(&["hooks", action, "--json"]);
        run.ok();
        strings_of(&run.json()["hooks"], "change")
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// Runs `hooks install --json` again and asserts it changed nothing.
    #[track_caller]
    pub fn assert_hooks_reinstall_unchanged(&self) {
        assert_eq!(self.hook_changes("install"), ["unchanged", "unchanged"]);
    }
}
