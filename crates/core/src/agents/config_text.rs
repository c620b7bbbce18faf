//! `agent install` and `agent uninstall` on the text of an agent's config
//! file: git-evolv's entries appended to the hook lists (`json_edit`),
//! every other byte left as it was, and removed again. Install reports the
//! containers it had to create (`hooks`, an event's list), so uninstall
//! can remove them again once empty, and a file nobody edited in between
//! comes back byte for byte.

use super::Agent;
use super::json_doc::{self, Node};
use super::json_edit::{Json, append, remove};
use super::wiring::{entry, is_ours, new_file_members, wires};

/// The text after install, and the containers it created (key paths).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    pub text: String,
    pub created: Vec<Vec<String>>,
}

/// The file's text when install creates it, before the hooks go in.
pub const NEW_FILE: &str = "{}\n";

fn parse(text: &str) -> Result<Node, String> {
    let doc = json_doc::parse(text).map_err(|e| format!("it is not valid JSON: {e}"))?;
    if doc.members().is_none() {
        return Err("it does not hold a JSON object".into());
    }
    Ok(doc)
}

fn path(keys: &[&str]) -> Vec<String> {
    keys.iter().map(|k| k.to_string()).collect()
}

/// Adds git-evolv's entries to `text` (`None`: a file install creates).
/// Events already holding git-evolv's entry are left alone, so a second
/// install changes nothing. The error says what is wrong with the file.
pub fn install(agent: Agent, text: Option<&str>) -> Result<Installed, String> {
    let mut text = text.unwrap_or(NEW_FILE).to_string();
    let mut created = Vec::new();
    if text == NEW_FILE {
        for (key, value) in new_file_members(agent) {
            let doc = parse(&text)?;
            text = append(&text, &doc, Some(key), &value);
        }
    }
    for wire in wires(agent) {
        let doc = parse(&text)?;
        let new_entry = entry(agent, wire);
        let Some(hooks) = doc.get("hooks") else {
            let value = Json::Obj(vec![(wire.event.to_string(), Json::Arr(vec![new_entry]))]);
            text = append(&text, &doc, Some("hooks"), &value);
            created.push(path(&["hooks"]));
            created.push(path(&["hooks", wire.event]));
            continue;
        };
        if hooks.members().is_none() {
            return Err("its \"hooks\" is not an object".into());
        }
        match hooks.get(wire.event) {
            None => {
                let value = Json::Arr(vec![new_entry]);
                text = append(&text, hooks, Some(wire.event), &value);
                created.push(path(&["hooks", wire.event]));
            }
            Some(list) => {
                let Some(items) = list.items() else {
                    return Err(format!("its \"hooks\".\"{}\" is not a list", wire.event));
                };
                if !items.iter().any(is_ours) {
                    text = append(&text, list, None, &new_entry);
                }
            }
        }
    }
    Ok(Installed { text, created })
}

/// The first git-evolv entry under `hooks`: (event, index in its list).
fn find_ours(doc: &Node) -> Option<(String, usize)> {
    let hooks = doc.get("hooks")?.members()?;
    hooks.iter().find_map(|m| {
        let items = m.value.items()?;
        let i = items.iter().position(is_ours)?;
        Some((m.key.clone(), i))
    })
}

/// The node at a key path.
fn at<'a>(doc: &'a Node, keys: &[String]) -> Option<&'a Node> {
    keys.iter().try_fold(doc, |node, k| node.get(k))
}

fn is_empty(node: &Node) -> bool {
    node.members().is_some_and(<[_]>::is_empty) || node.items().is_some_and(<[_]>::is_empty)
}

/// Removes git-evolv's entries from `text`, then the containers install
/// created (`created`; without that record, the hook lists and `hooks`
/// object git-evolv's entries leave empty). `Ok(None)`: the file should
/// go (install created it and nothing else is left in it).
pub fn uninstall(
    agent: Agent,
    text: &str,
    created: Option<&[Vec<String>]>,
    created_file: bool,
) -> Result<Option<String>, String> {
    let mut text = text.to_string();
    let mut events = Vec::new();
    loop {
        let doc = parse(&text)?;
        let Some((event, index)) = find_ours(&doc) else {
            break;
        };
        let list = doc.get("hooks").and_then(|h| h.get(&event)).expect("found");
        text = remove(&text, list, index);
        events.push(event);
    }
    let mut containers: Vec<Vec<String>> = match created {
        Some(c) => c.to_vec(),
        None => {
            let mut guess: Vec<Vec<String>> = events
                .iter()
                .map(|e| vec!["hooks".to_string(), e.clone()])
                .collect();
            if !events.is_empty() {
                guess.push(path(&["hooks"]));
            }
            guess
        }
    };
    // The deepest first: a list before the object holding it.
    containers.sort_by_key(|p| std::cmp::Reverse(p.len()));
    for keys in containers {
        let doc = parse(&text)?;
        let (Some(node), Some((last, parent_keys))) = (at(&doc, &keys), keys.split_last()) else {
            continue;
        };
        if !is_empty(node) {
            continue;
        }
        let parent = at(&doc, parent_keys).expect("the parent of a found node");
        let members = parent.members().unwrap_or_default();
        if let Some(i) = members.iter().rposition(|m| &m.key == last) {
            text = remove(&text, parent, i);
        }
    }
    if created_file {
        let doc = parse(&text)?;
        let own: Vec<&str> = new_file_members(agent).iter().map(|(k, _)| *k).collect();
        let members = doc.members().unwrap_or_default();
        if members.iter().all(|m| own.contains(&m.key.as_str())) {
            return Ok(None);
        }
    }
    Ok(Some(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    const USERS: &str = r#"{
    "model": "opus",
    "hooks": {
        "PostToolUse": [
            {
                "matcher": "Write",
                "hooks": [ { "type": "command", "command": "prettier --write" } ]
            }
        ],
        "Notification": []
    },
    "zeta": 1
}
"#;

    #[test]
    fn install_twice_then_uninstall_gives_the_users_bytes_back() {
        for agent in Agent::ALL {
            let once = install(agent, Some(USERS)).unwrap();
            assert!(once.text.contains("prettier --write"));
            assert!(once.text.find("prettier").unwrap() < once.text.find("evolv agent").unwrap());
            let twice = install(agent, Some(&once.text)).unwrap();
            assert_eq!(
                twice.text, once.text,
                "{agent:?}: a second install changed the file"
            );
            let back = uninstall(agent, &once.text, Some(&once.created), false).unwrap();
            assert_eq!(back.as_deref(), Some(USERS), "{agent:?}:\n{}", once.text);
        }
    }

    #[test]
    fn a_file_install_created_goes_again() {
        for agent in Agent::ALL {
            let made = install(agent, None).unwrap();
            serde_json::from_str::<serde_json::Value>(&made.text).unwrap();
            assert_eq!(
                uninstall(agent, &made.text, Some(&made.created), true),
                Ok(None)
            );
            // Without the record: the entries and the containers they left empty.
            let back = uninstall(agent, &made.text, None, false).unwrap().unwrap();
            assert!(!back.contains("hooks"), "{back}");
        }
    }

    #[test]
    fn an_empty_hooks_object_of_the_users_stays() {
        let text = "{\n  \"hooks\": {}\n}\n";
        let once = install(Agent::ClaudeCode, Some(text)).unwrap();
        let back = uninstall(Agent::ClaudeCode, &once.text, Some(&once.created), false);
        assert_eq!(back.unwrap().as_deref(), Some(text));
    }

    #[test]
    fn files_it_cannot_edit_are_named_not_rewritten() {
        assert!(
            install(Agent::Codex, Some("[1]"))
                .unwrap_err()
                .contains("object")
        );
        assert!(
            install(Agent::Codex, Some("{\"hooks\": 3}"))
                .unwrap_err()
                .contains("hooks")
        );
        let e = install(Agent::Codex, Some("{\"hooks\": {\"Stop\": {}}}")).unwrap_err();
        assert!(e.contains("Stop"), "{e}");
        assert!(
            install(Agent::Codex, Some("{"))
                .unwrap_err()
                .contains("line 1")
        );
    }
}
