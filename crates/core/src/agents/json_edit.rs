//! Minimal edits of a JSON document read by `json_doc`: an entry appended
//! to an object or an array, and an entry removed again, each touching
//! only the bytes of the entry and its separator. The two are inverses:
//! removing what `append` added gives back the document byte for byte
//! (the user's key order, spacing and comments are never rewritten).
//!
//! Appending after a last entry inserts `,` + the separator the document
//! already uses before that entry + the new entry; removing an entry that
//! follows another deletes from the end of the one before to its own end.
//! An empty container gets a line break and its children's indentation
//! after the opening bracket, and a line break back to its own line's
//! indentation before whatever stood between the brackets; removing its
//! only entry deletes both again.

use super::json_doc::Node;

/// A JSON value with its keys in the order written (serde_json's map
/// sorts them), for the entries this module writes.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Str(String),
    Num(u64),
    Bool(bool),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    pub fn obj(members: &[(&str, Json)]) -> Json {
        Json::Obj(
            members
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    pub fn str(s: &str) -> Json {
        Json::Str(s.to_string())
    }

    /// The value as text: one line (`unit` empty) or pretty, each nested
    /// line indented by `indent` + `unit` per level.
    pub fn render(&self, indent: &str, unit: &str) -> String {
        let mut out = String::new();
        self.write(&mut out, indent, unit);
        out
    }

    fn write(&self, out: &mut String, indent: &str, unit: &str) {
        let (open, close, children): (char, char, Vec<(Option<&str>, &Json)>) = match self {
            Json::Str(s) => {
                out.push_str(&serde_json::Value::String(s.clone()).to_string());
                return;
            }
            Json::Num(n) => {
                out.push_str(&n.to_string());
                return;
            }
            Json::Bool(b) => {
                out.push_str(if *b { "true" } else { "false" });
                return;
            }
            Json::Arr(items) => ('[', ']', items.iter().map(|v| (None, v)).collect()),
            Json::Obj(members) => (
                '{',
                '}',
                members.iter().map(|(k, v)| (Some(k.as_str()), v)).collect(),
            ),
        };
        out.push(open);
        let inner = format!("{indent}{unit}");
        for (i, (key, value)) in children.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            if unit.is_empty() {
                if i > 0 {
                    out.push(' ');
                }
            } else {
                out.push('\n');
                out.push_str(&inner);
            }
            if let Some(key) = key {
                out.push_str(&serde_json::Value::String(key.to_string()).to_string());
                out.push_str(": ");
            }
            value.write(out, &inner, unit);
        }
        if !unit.is_empty() && !children.is_empty() {
            out.push('\n');
            out.push_str(indent);
        }
        out.push(close);
    }
}

/// The indentation one level adds in `text`: the leading whitespace of its
/// least-indented indented line (two spaces when no line is indented).
pub fn indent_unit(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
        .filter(|ws| !ws.is_empty())
        .min_by_key(|ws| ws.len())
        .unwrap_or("  ")
        .to_string()
}

/// The whitespace that starts the line `pos` is on.
fn line_indent(text: &str, pos: usize) -> &str {
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// Whether `pos` is the first non-blank byte of its line.
fn starts_line(text: &str, pos: usize) -> bool {
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    text[start..pos].bytes().all(|b| b == b' ' || b == b'\t')
}

/// The spans of a container's entries (members or elements).
fn entries(container: &Node) -> Vec<(usize, usize)> {
    if let Some(members) = container.members() {
        members.iter().map(|m| (m.start, m.end())).collect()
    } else if let Some(items) = container.items() {
        items.iter().map(|n| (n.start, n.end)).collect()
    } else {
        Vec::new()
    }
}

/// `text` with `entry` (`"key": value` for an object, a value for an
/// array) appended as the container's last entry.
pub fn append(text: &str, container: &Node, key: Option<&str>, value: &Json) -> String {
    let unit = indent_unit(text);
    let spans = entries(container);
    let key_text = key.map(|k| format!("{}: ", serde_json::Value::String(k.to_string())));
    let key_text = key_text.unwrap_or_default();
    let (at, insert) = match spans.last() {
        Some(&(last_start, last_end)) => {
            if starts_line(text, last_start) {
                let indent = line_indent(text, last_start);
                let entry = format!("{key_text}{}", value.render(indent, &unit));
                (last_end, format!(",\n{indent}{entry}"))
            } else {
                let entry = format!("{key_text}{}", value.render("", ""));
                (last_end, format!(", {entry}"))
            }
        }
        None => {
            let own = line_indent(text, container.start);
            let inner = format!("{own}{unit}");
            let entry = format!("{key_text}{}", value.render(&inner, &unit));
            (container.start + 1, format!("\n{inner}{entry}\n{own}"))
        }
    };
    let mut out = String::with_capacity(text.len() + insert.len());
    out.push_str(&text[..at]);
    out.push_str(&insert);
    out.push_str(&text[at..]);
    out
}

/// `text` without the container's entry `index`: the inverse of `append`.
pub fn remove(text: &str, container: &Node, index: usize) -> String {
    let spans = entries(container);
    let Some(&(start, end)) = spans.get(index) else {
        return text.to_string();
    };
    let (from, to) = if index > 0 {
        (spans[index - 1].1, end)
    } else if let Some(&(next_start, _)) = spans.get(1) {
        (start, next_start)
    } else {
        // The only entry: back to the empty container `append` found.
        let open = container.start + 1;
        let mut to = end;
        let rest = &text[to..];
        let after_blank = rest.trim_start_matches([' ', '\t', '\n', '\r']);
        if after_blank.starts_with(',') {
            // A trailing comma the user added after it.
            to += rest.len() - after_blank.len() + 1;
        }
        let own = line_indent(text, container.start);
        let back = format!("\n{own}");
        if text[to..].starts_with(&back) {
            to += back.len();
        }
        (open, to)
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..from]);
    out.push_str(&text[to..]);
    out
}

#[cfg(test)]
mod tests {
    use super::super::json_doc::parse;
    use super::*;

    fn entry() -> Json {
        Json::obj(&[
            ("matcher", Json::str("Edit|Write")),
            (
                "hooks",
                Json::Arr(vec![Json::obj(&[
                    ("type", Json::str("command")),
                    ("command", Json::str("git evolv agent hook x")),
                ])]),
            ),
        ])
    }

    /// Appends to the array at `path` (or the key to the object), checks
    /// the result parses, then removes it and checks the bytes came back.
    fn round_trip(text: &str, path: &[&str], key: Option<&str>) -> String {
        let doc = parse(text).unwrap();
        let mut node = &doc;
        for p in path {
            node = node.get(p).unwrap();
        }
        let added = append(text, node, key, &entry());
        let doc2 = parse(&added).unwrap_or_else(|e| panic!("{e}\n{added}"));
        let mut node2 = &doc2;
        for p in path {
            node2 = node2.get(p).unwrap();
        }
        let n = node2
            .members()
            .map_or_else(|| node2.items().unwrap().len(), <[_]>::len);
        assert_eq!(remove(&added, node2, n - 1), text, "after adding:\n{added}");
        added
    }

    #[test]
    fn append_then_remove_gives_the_same_bytes() {
        let added = round_trip("{\n    \"a\": [\n        1\n    ]\n}\n", &["a"], None);
        assert!(
            added.contains("        1,\n        {\n            \"matcher\""),
            "{added}"
        );
        round_trip("{\"a\": [1, 2]}", &["a"], None);
        let added = round_trip("{\n  \"a\": []\n}\n", &["a"], None);
        assert!(
            added.starts_with("{\n  \"a\": [\n    {\n      \"matcher\": "),
            "{added}"
        );
        round_trip("{\n  \"a\": [ ]\n}\n", &["a"], None);
        round_trip("{\n  \"a\": [\n  ]\n}\n", &["a"], None);
        round_trip("{}", &[], Some("hooks"));
        round_trip("{\n\t\"x\": 1 // keep\n}\n", &[], Some("hooks"));
        round_trip("{\n  \"x\": [1,],\n}\n", &["x"], None);
    }

    #[test]
    fn removing_a_first_entry_keeps_the_rest_valid() {
        let text = "[\n  1,\n  2\n]";
        let doc = parse(text).unwrap();
        assert_eq!(remove(text, &doc, 0), "[\n  2\n]");
        let text = "[1,]";
        assert_eq!(remove(text, &parse(text).unwrap(), 0), "[]");
    }

    #[test]
    fn the_indent_unit_is_the_files_own() {
        assert_eq!(indent_unit("{\n\t\"a\": 1\n}"), "\t");
        assert_eq!(
            indent_unit("{\n    \"a\": {\n        \"b\": 1\n    }\n}"),
            "    "
        );
        assert_eq!(indent_unit("{}"), "  ");
    }
}
