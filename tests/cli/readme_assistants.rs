//! The README's assistant snippets (issue 29 item 6): each client's config
//! block parses as its format says (JSON or TOML), names one `git-evolv`
//! server, and the command it names, found on PATH as the client would
//! find it, starts an MCP server that answers `initialize` in a repository.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::common::{BIN, TestRepo, TestResult};

const README: &str = include_str!("../../README.md");

/// The clients the README promises a snippet for, in its order.
const CLIENTS: &[&str] = &["Claude Code", "Codex", "Gemini CLI", "Cursor", "VS Code"];

/// One fenced block of the assistant section: the line introducing it,
/// its language and its text.
struct Snippet {
    intro: String,
    lang: String,
    text: String,
}

fn snippets() -> Vec<Snippet> {
    let start = README
        .find("## Using it from an assistant")
        .expect("README has a '## Using it from an assistant' section");
    let section = &README[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let mut out = Vec::new();
    let mut lines = section.lines();
    let mut previous = "";
    while let Some(line) = lines.next() {
        if let Some(lang) = line.strip_prefix("```") {
            let text: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            out.push(Snippet {
                intro: previous.to_string(),
                lang: lang.to_string(),
                text: text.join("\n"),
            });
        } else if !line.trim().is_empty() {
            previous = line;
        }
    }
    out
}

/// The server entry named `git-evolv` in a parsed config, as JSON.
fn server_entry(snippet: &Snippet) -> Result<Value, String> {
    let config: Value = match snippet.lang.as_str() {
        "json" => serde_json::from_str(&snippet.text).map_err(|e| e.to_string())?,
        "toml" => {
            let table: toml::Table = toml::from_str(&snippet.text).map_err(|e| e.to_string())?;
            serde_json::to_value(table).map_err(|e| e.to_string())?
        }
        other => return Err(format!("a ```{other} block: expected json or toml")),
    };
    // Claude Code, Gemini CLI, Cursor: mcpServers; VS Code: servers;
    // Codex: mcp_servers.
    ["mcpServers", "servers", "mcp_servers"]
        .iter()
        .find_map(|k| config.get(k)?.get("git-evolv").cloned())
        .ok_or_else(|| "no mcpServers / servers / mcp_servers entry named git-evolv".into())
}

/// Starts `command args` in `repo` with the binary's folder first on PATH,
/// sends `initialize`, and returns the answer.
fn initialize(command: &str, args: &[String], repo: &Path) -> Result<Value, String> {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut child = Command::new(command)
        .args(args)
        .current_dir(repo)
        .env("PATH", path)
        .env("HOME", repo)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("could not start {command}: {e}"))?;
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"readme","version":"1"}}}"#;
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{request}").map_err(|e| e.to_string())?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    drop(stdin);
    let _ = child.wait();
    serde_json::from_str(&line).map_err(|e| format!("not a JSON-RPC answer: {line:?}: {e}"))
}

#[test]
fn every_assistant_snippet_parses_and_starts_the_server() -> TestResult {
    let found = snippets();
    let repo = TestRepo::new();
    for client in CLIENTS {
        let snippet = found
            .iter()
            .find(|s| s.intro.starts_with(client))
            .ok_or_else(|| format!("README: no snippet introduced by '{client}'"))?;
        let entry = server_entry(snippet).map_err(|e| format!("{client}: {e}"))?;
        let command = entry["command"]
            .as_str()
            .ok_or(format!("{client}: no command"))?;
        assert_eq!(
            command, "git-evolv",
            "{client}: the installed binary's name"
        );
        let args: Vec<String> = entry["args"]
            .as_array()
            .ok_or(format!("{client}: no args"))?
            .iter()
            .map(|a| a.as_str().unwrap_or_default().to_string())
            .collect();
        let answer =
            initialize(command, &args, repo.path()).map_err(|e| format!("{client}: {e}"))?;
        assert_eq!(answer["id"], 1, "{client}: {answer}");
        assert_eq!(
            answer["result"]["serverInfo"]["name"], "git-evolv",
            "{client}: {answer}"
        );
    }
    Ok(())
}

#[test]
fn a_broken_snippet_is_refused_by_the_check() {
    let bad = |lang: &str, text: &str| Snippet {
        intro: "X".into(),
        lang: lang.into(),
        text: text.into(),
    };
    assert!(server_entry(&bad("json", r#"{"mcpServers": {"git-evolv": }"#)).is_err());
    assert!(server_entry(&bad("toml", "[mcp_servers.git-evolv\ncommand = 1")).is_err());
    assert!(server_entry(&bad("json", r#"{"mcpServers": {"other": {}}}"#)).is_err());
    assert!(server_entry(&bad("sh", "git evolv mcp")).is_err());
    let repo = TestRepo::new();
    assert!(initialize("git-evolv", &["no-such-command".into()], repo.path()).is_err());
}
