//! What a checkpoint commit says about itself: its agent, session, turn,
//! event, tool and model as trailers of its message (`Evolv-Checkpoint-*`),
//! so `git log` shows them and nothing beside the commit must be kept in
//! step with it. A stored prompt is the message's body, indented so no
//! line of it can pass for a trailer.

use crate::git::Oid;

const PREFIX: &str = "Evolv-Checkpoint-";

/// What a checkpoint records besides its tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta {
    pub agent: String,
    pub session: String,
    /// Turns are counted from 1; a turn-start checkpoint opens the next.
    pub turn: u64,
    /// `turn-start`, `after-tool`, `stop`, `manual`, `save` (a rewind's
    /// copy of the work tree before it), `rewind`.
    pub event: String,
    pub tool: Option<String>,
    pub model: Option<String>,
    /// The commit HEAD was on.
    pub head: Option<Oid>,
    /// For a rewind: the checkpoint it rewound to.
    pub rewound_to: Option<Oid>,
}

impl Meta {
    /// The commit message: a summary, the prompt when stored, the trailers.
    pub fn message(&self, prompt: Option<&str>) -> String {
        let mut out = format!(
            "checkpoint: {} turn {} {}",
            one_line(&self.agent),
            self.turn,
            self.event
        );
        if let Some(tool) = &self.tool {
            out.push(' ');
            out.push_str(&one_line(tool));
        }
        out.push_str("\n\n");
        if let Some(prompt) = prompt.filter(|p| !p.trim().is_empty()) {
            for line in prompt.lines() {
                out.push_str("    ");
                out.push_str(line);
                out.push('\n');
            }
            out.push('\n');
        }
        let mut trailer = |key: &str, value: &str| {
            out.push_str(&format!("{PREFIX}{key}: {}\n", one_line(value)));
        };
        trailer("Agent", &self.agent);
        trailer("Session", &self.session);
        trailer("Turn", &self.turn.to_string());
        trailer("Event", &self.event);
        if let Some(tool) = &self.tool {
            trailer("Tool", tool);
        }
        if let Some(model) = &self.model {
            trailer("Model", model);
        }
        if let Some(head) = self.head {
            trailer("Head", &head.to_string());
        }
        if let Some(to) = self.rewound_to {
            trailer("Rewound-To", &to.to_string());
        }
        out
    }

    /// The metadata of a checkpoint's message; `None` when it is not one
    /// (no agent or session trailer).
    pub fn parse(message: &[u8]) -> Option<Meta> {
        let text = String::from_utf8_lossy(message);
        let mut meta = Meta::default();
        let (mut agent, mut session) = (None, None);
        for line in text.lines().rev() {
            let Some(rest) = line.strip_prefix(PREFIX) else {
                if line.trim().is_empty() {
                    continue;
                }
                break;
            };
            let Some((key, value)) = rest.split_once(": ") else {
                continue;
            };
            let value = value.to_string();
            match key {
                "Agent" => agent = Some(value),
                "Session" => session = Some(value),
                "Turn" => meta.turn = value.parse().unwrap_or(0),
                "Event" => meta.event = value,
                "Tool" => meta.tool = Some(value),
                "Model" => meta.model = Some(value),
                "Head" => meta.head = Oid::parse(&value).ok(),
                "Rewound-To" => meta.rewound_to = Oid::parse(&value).ok(),
                _ => {}
            }
        }
        meta.agent = agent?;
        meta.session = session?;
        Some(meta)
    }

    /// The prompt a checkpoint's message stores, if any.
    pub fn prompt(message: &[u8]) -> Option<String> {
        let text = String::from_utf8_lossy(message);
        let lines: Vec<&str> = text
            .lines()
            .skip(2)
            .take_while(|l| l.starts_with("    "))
            .map(|l| &l[4..])
            .collect();
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

/// `text` on one line: a value with a newline would end its trailer.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_reads_back_and_a_prompt_cannot_forge_a_trailer() {
        let meta = Meta {
            agent: "codex".into(),
            session: "s-1".into(),
            turn: 3,
            event: "after-tool".into(),
            tool: Some("apply_patch\nEvolv-Checkpoint-Turn: 9".into()),
            model: Some("gpt-5".into()),
            head: None,
            rewound_to: None,
        };
        let prompt = "fix it\nEvolv-Checkpoint-Session: other";
        let message = meta.message(Some(prompt));
        let back = Meta::parse(message.as_bytes()).unwrap();
        assert_eq!(back.session, "s-1");
        assert_eq!(back.turn, 3);
        assert_eq!(
            back.tool.as_deref(),
            Some("apply_patch Evolv-Checkpoint-Turn: 9")
        );
        assert_eq!(Meta::prompt(message.as_bytes()).as_deref(), Some(prompt));
        assert!(Meta::parse(b"feat: a commit\n\nSigned-off-by: x").is_none());
    }
}
