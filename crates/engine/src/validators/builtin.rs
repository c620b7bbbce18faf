//! Built-in checks, by file extension: JSON must parse, notebooks must stay
//! valid nbformat 4 (required keys and cell shapes), TOML (the `toml`
//! crate) and YAML (`yaml-rust2`) must parse.

use serde_json::Value;

use super::{ChangedFile, ValidatorReport};

/// One built-in check: bytes in, the parser's complaint out.
type Check = fn(&[u8]) -> Result<(), String>;

/// The built-in check that applies to `file`, if one does. It refuses only
/// what the edit made worse (issue 38 item 21): content the edit did not
/// change (a mode-only change, a pure rename) is not looked at, and a file
/// already invalid at the base passes; the report says it was not checked.
pub fn check(file: &ChangedFile<'_>) -> Option<ValidatorReport> {
    let (name, check) = check_for(file.path)?;
    let report = |passed: bool, checked: bool, output: String| ValidatorReport {
        name: name.into(),
        command: None,
        files: vec![file.path.to_string()],
        passed,
        output,
        exit_code: None,
        checked,
    };
    if file.base == Some(file.content) {
        let what = if file.renamed {
            "renamed with its content unchanged"
        } else {
            "only its mode changed"
        };
        return Some(report(
            true,
            false,
            format!("{}: not checked: {what}", file.path),
        ));
    }
    match check(file.content) {
        Ok(()) => Some(report(true, true, String::new())),
        Err(now) => match file.base.map(check) {
            Some(Err(before)) => Some(report(
                true,
                false,
                format!(
                    "{}: not checked: it was already invalid at the base ({before}), and the edit leaves it invalid ({now})",
                    file.path
                ),
            )),
            _ => Some(report(false, true, format!("{}: {now}", file.path))),
        },
    }
}

/// The check for `path`'s extension, with its name.
fn check_for(path: &str) -> Option<(&'static str, Check)> {
    let lower = path.to_ascii_lowercase();
    let found: (&str, Check) = if lower.ends_with(".ipynb") {
        ("notebook", |b| text(b).and_then(notebook))
    } else if lower.ends_with(".json") {
        ("json", |b| {
            text(b).and_then(|t| {
                serde_json::from_str::<Value>(t)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
        })
    } else if lower.ends_with(".toml") {
        ("toml", |b| {
            text(b).and_then(|t| {
                toml::from_str::<toml::Table>(t)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
        })
    } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
        ("yaml", |b| {
            text(b).and_then(|t| {
                yaml_rust2::YamlLoader::load_from_str(t)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
        })
    } else {
        return None;
    };
    Some(found)
}

fn text(content: &[u8]) -> Result<&str, String> {
    let bytes = content.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(content);
    std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))
}

/// nbformat 4: the top-level keys, and each cell's shape.
pub fn notebook(text: &str) -> Result<(), String> {
    let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let top = v.as_object().ok_or("the notebook is not a JSON object")?;
    let major = top
        .get("nbformat")
        .and_then(Value::as_u64)
        .ok_or("\"nbformat\" is missing or not an integer")?;
    let minor = top
        .get("nbformat_minor")
        .and_then(Value::as_u64)
        .ok_or("\"nbformat_minor\" is missing or not an integer")?;
    if major != 4 {
        return Err(format!("nbformat {major} is not supported (4 is)"));
    }
    if !top.get("metadata").is_some_and(Value::is_object) {
        return Err("\"metadata\" is missing or not an object".into());
    }
    let cells = top
        .get("cells")
        .and_then(Value::as_array)
        .ok_or("\"cells\" is missing or not an array")?;
    let mut ids = std::collections::HashSet::new();
    for (i, cell) in cells.iter().enumerate() {
        let c = cell
            .as_object()
            .ok_or(format!("cell {i} is not an object"))?;
        let kind = c
            .get("cell_type")
            .and_then(Value::as_str)
            .ok_or(format!("cell {i} has no cell_type"))?;
        if !matches!(kind, "code" | "markdown" | "raw") {
            return Err(format!(
                "cell {i} has cell_type '{kind}' (code, markdown or raw)"
            ));
        }
        let source_ok = match c.get("source") {
            Some(Value::String(_)) => true,
            Some(Value::Array(a)) => a.iter().all(Value::is_string),
            _ => false,
        };
        if !source_ok {
            return Err(format!(
                "cell {i} has no source (a string or a list of strings)"
            ));
        }
        if !c.get("metadata").is_some_and(Value::is_object) {
            return Err(format!("cell {i} has no metadata object"));
        }
        if kind == "code" {
            if !c.get("outputs").is_some_and(Value::is_array) {
                return Err(format!("code cell {i} has no outputs list"));
            }
            if !c
                .get("execution_count")
                .is_some_and(|e| e.is_null() || e.is_u64())
            {
                return Err(format!(
                    "code cell {i} has no execution_count (null or a number)"
                ));
            }
        }
        if minor >= 5 {
            let id = c
                .get("id")
                .and_then(Value::as_str)
                .ok_or(format!("cell {i} has no id (required from nbformat 4.5)"))?;
            if !ids.insert(id.to_string()) {
                return Err(format!("cell {i} repeats the id '{id}'"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(path: &str, content: &str) -> Option<ValidatorReport> {
        check(&ChangedFile {
            path,
            content: content.as_bytes(),
            base: None,
            renamed: false,
        })
    }

    /// `path` edited from `base` to `content`.
    fn edit(path: &str, base: &str, content: &str, renamed: bool) -> ValidatorReport {
        check(&ChangedFile {
            path,
            content: content.as_bytes(),
            base: Some(base.as_bytes()),
            renamed,
        })
        .expect("a checked type")
    }

    #[test]
    fn only_what_the_edit_made_worse_is_refused() {
        let bad = "{\"a\": }";
        let r = edit("a.json", bad, bad, false);
        assert!(
            r.passed && !r.checked && r.output.contains("only its mode changed"),
            "{r:?}"
        );
        let r = edit("b.json", bad, bad, true);
        assert!(
            r.passed && !r.checked && r.output.contains("renamed"),
            "{r:?}"
        );
        let r = edit("a.json", bad, "{\"b\": }", false);
        assert!(
            r.passed && !r.checked && r.output.contains("already invalid"),
            "{r:?}"
        );
        let r = edit("a.json", "{}", "{", false);
        assert!(!r.passed && r.checked, "{r:?}");
        let r = edit("a.json", bad, "{}", false);
        assert!(r.passed && r.checked && r.output.is_empty(), "{r:?}");
    }

    #[test]
    fn each_type_is_checked() {
        assert!(run("a.json", "{\"a\": 1}").unwrap().passed);
        assert!(!run("a.json", "{\"a\": }").unwrap().passed);
        assert!(!run("a.toml", "a = ").unwrap().passed);
        assert!(run("a.toml", "a = 1").unwrap().passed);
        assert!(!run("a.yml", "a: [").unwrap().passed);
        assert!(run("a.yaml", "a: [1]").unwrap().passed);
        assert!(run("a.rs", "fn").is_none());
        let nb = r#"{"cells": [{"cell_type": "code", "metadata": {}, "source": [], "outputs": []}], "metadata": {}, "nbformat": 4, "nbformat_minor": 2}"#;
        let r = run("n.ipynb", nb).unwrap();
        assert!(!r.passed && r.output.contains("execution_count"), "{r:?}");
    }
}
