//! Built-in checks, by file extension: JSON must parse, notebooks must stay
//! valid nbformat 4 (required keys and cell shapes), TOML (the `toml`
//! crate) and YAML (`yaml-rust2`) must parse.

use serde_json::Value;

use super::{ChangedFile, ValidatorReport};

/// The built-in check that applies to `file`, if one does.
pub fn check(file: &ChangedFile<'_>) -> Option<ValidatorReport> {
    let lower = file.path.to_ascii_lowercase();
    let (name, result) = if lower.ends_with(".ipynb") {
        ("notebook", text(file).and_then(notebook))
    } else if lower.ends_with(".json") {
        (
            "json",
            text(file).and_then(|t| {
                serde_json::from_str::<Value>(t)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }),
        )
    } else if lower.ends_with(".toml") {
        (
            "toml",
            text(file).and_then(|t| {
                toml::from_str::<toml::Table>(t)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }),
        )
    } else if lower.ends_with(".yaml") || lower.ends_with(".yml") {
        (
            "yaml",
            text(file).and_then(|t| {
                yaml_rust2::YamlLoader::load_from_str(t)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }),
        )
    } else {
        return None;
    };
    Some(ValidatorReport {
        name: name.into(),
        command: None,
        files: vec![file.path.to_string()],
        passed: result.is_ok(),
        output: result
            .err()
            .map(|e| format!("{}: {e}", file.path))
            .unwrap_or_default(),
        exit_code: None,
    })
}

fn text<'a>(file: &'a ChangedFile<'_>) -> Result<&'a str, String> {
    let bytes = file
        .content
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(file.content);
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
        })
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
