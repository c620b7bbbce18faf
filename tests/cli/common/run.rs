//! [`Run`]: one finished command, its output, and the checks on it.

use std::process::{Child, Command, Output};

use serde_json::Value;

use super::{Error, error_code};

/// The result of one command.
#[derive(Debug)]
pub struct Run {
    /// The command line as a person would type it (`git evolv list`), for
    /// transcripts; empty when the run was not started by a helper here.
    pub command: String,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub stdout_bytes: Vec<u8>,
}

impl Run {
    pub fn from(out: Output) -> Self {
        Run {
            command: String::new(),
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            stdout_bytes: out.stdout,
        }
    }

    /// Runs `cmd` to its end.
    pub fn of(mut cmd: Command) -> Self {
        Run::from(cmd.output().expect("the command starts"))
    }

    /// Waits for `child` (started with its output piped) to end.
    #[track_caller]
    pub fn wait(child: Child) -> Self {
        Run::from(child.wait_with_output().expect("the command ends"))
    }

    /// The run, its command line set for its transcript.
    pub fn named(mut self, command: impl Into<String>) -> Self {
        self.command = command.into();
        self
    }

    /// The stdout parsed as JSON.
    pub fn try_json(&self) -> Result<Value, Error> {
        serde_json::from_str(&self.stdout).map_err(|e| {
            format!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
            .into()
        })
    }

    /// The stdout parsed as JSON; panics when it is not.
    #[track_caller]
    pub fn json(&self) -> Value {
        self.try_json().unwrap_or_else(|e| panic!("{e}"))
    }

    /// The same as [`Run::json`], under the name the builders use.
    #[track_caller]
    pub fn stdout_json(&self) -> Value {
        self.json()
    }

    /// The string at `pointer` (`/error/message`) in the stdout's JSON.
    pub fn try_json_str(&self, pointer: &str) -> Result<String, Error> {
        let v = self.try_json()?;
        let s = v
            .pointer(pointer)
            .and_then(Value::as_str)
            .ok_or_else(|| format!("no string at {pointer} in {v}"))?;
        Ok(s.to_string())
    }

    /// The string at `pointer` in the stdout's JSON; panics when missing.
    #[track_caller]
    pub fn json_str(&self, pointer: &str) -> String {
        self.try_json_str(pointer).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The message of a failed `--json` run.
    #[track_caller]
    pub fn error_message(&self) -> String {
        self.json_str("/error/message")
    }

    /// The hint of a failed `--json` run.
    #[track_caller]
    pub fn error_hint(&self) -> String {
        self.json_str("/error/hint")
    }

    /// Fails unless the command exited 0.
    pub fn try_success(&self) -> Result<&Self, Error> {
        self.try_code(0)
    }

    /// Fails unless the command exited with `code`.
    pub fn try_code(&self, code: i32) -> Result<&Self, Error> {
        if self.code == code {
            return Ok(self);
        }
        let wanted = if code == 0 {
            "success".to_string()
        } else {
            format!("exit {code}, got {}", self.code)
        };
        Err(format!(
            "expected {wanted}\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        )
        .into())
    }

    #[track_caller]
    pub fn ok(&self) -> &Self {
        self.try_success().unwrap_or_else(|e| panic!("{e}"))
    }

    /// The same as [`Run::ok`], under the name the builders use.
    #[track_caller]
    pub fn success(&self) -> &Self {
        self.ok()
    }

    /// Asserts the exit code, showing the output when it differs.
    #[track_caller]
    pub fn code(&self, code: i32) -> &Self {
        self.try_code(code).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Asserts a failed `--json` run: its exit code and its error code (the
    /// error object checked for a message and a hint).
    #[track_caller]
    pub fn fails_with(&self, code: i32, error: &str) -> &Self {
        self.code(code);
        assert_eq!(error_code(self), error, "{}", self.stdout);
        self
    }

    /// The command, its stdout, stderr and exit code, as one text: what a
    /// snapshot of human output pins.
    pub fn transcript(&self) -> String {
        format!(
            "$ {}\n{}------- stderr -------\n{}------- exit {} -------\n",
            self.command, self.stdout, self.stderr, self.code
        )
    }
}
