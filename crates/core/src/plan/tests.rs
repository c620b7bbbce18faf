use serde_json::json;

use super::*;

fn issues(text: &str) -> Vec<String> {
    ExecutionPlan::from_json(text)
        .expect_err("expected the plan to be refused")
        .into_iter()
        .map(|i| i.to_string())
        .collect()
}

const MINIMAL: &str = r#"{"rollback": {"strategy": "git_revert"}}"#;

#[test]
fn defaults_fill_in_and_dry_run_defaults_to_true() {
    let plan = ExecutionPlan::from_json(MINIMAL).unwrap();
    assert!(plan.dry_run);
    assert!(!plan.batch);
    assert_eq!(
        plan.limits,
        Limits {
            max_files: 10,
            max_changes: 50,
            timeout_seconds: 30
        }
    );
    assert!(
        plan.validation.pre_conditions.is_empty() && plan.validation.expected_outcomes.is_empty()
    );
    assert!(plan.rollback.commands.is_empty());
}

#[test]
fn rollback_is_required() {
    let found = issues("{}");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("rollback: missing"), "{found:?}");
    assert!(issues(r#"{"rollback": {}}"#)[0].starts_with("rollback.strategy: missing"));
}

#[test]
fn every_out_of_range_value_names_path_value_and_allowed_range() {
    let cases = [
        ("max_files", 0, "limits.max_files: 0 is below the minimum 1"),
        (
            "max_files",
            101,
            "limits.max_files: 101 is above the maximum 100",
        ),
        (
            "max_files",
            -5,
            "limits.max_files: -5 is below the minimum 1",
        ),
        (
            "max_changes",
            0,
            "limits.max_changes: 0 is below the minimum 1",
        ),
        (
            "max_changes",
            1001,
            "limits.max_changes: 1001 is above the maximum 1000",
        ),
        (
            "timeout_seconds",
            0,
            "limits.timeout_seconds: 0 is below the minimum 1",
        ),
        (
            "timeout_seconds",
            301,
            "limits.timeout_seconds: 301 is above the maximum 300",
        ),
    ];
    for (field, value, expected) in cases {
        let text = json!({"rollback": {"strategy": "manual", "commands": ["x"]}, "limits": {field: value}}).to_string();
        let found = issues(&text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with(expected), "{found:?} vs {expected}");
        assert!(found[0].contains("allowed"), "{found:?}");
    }
    for (field, value) in [
        ("max_files", 1),
        ("max_files", 100),
        ("max_changes", 1000),
        ("timeout_seconds", 300),
    ] {
        let text =
            json!({"rollback": {"strategy": "git_revert"}, "limits": {field: value}}).to_string();
        assert!(
            ExecutionPlan::from_json(&text).is_ok(),
            "{field}={value} is allowed"
        );
    }
}

#[test]
fn every_unknown_field_is_rejected_at_every_level() {
    let cases = [
        (
            json!({"rollback": {"strategy": "git_revert"}, "dryrun": true}),
            "dryrun: unknown field",
        ),
        (
            json!({"rollback": {"strategy": "git_revert", "steps": []}}),
            "rollback.steps: unknown field",
        ),
        (
            json!({"rollback": {"strategy": "git_revert"}, "limits": {"max_file": 3}}),
            "limits.max_file: unknown field",
        ),
        (
            json!({"rollback": {"strategy": "git_revert"}, "validation": {"pre": []}}),
            "validation.pre: unknown field",
        ),
    ];
    for (plan, expected) in cases {
        let found = issues(&plan.to_string());
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].starts_with(expected), "{found:?}");
    }
    assert!(
        issues(
            &json!({"rollback": {"strategy": "git_revert"}, "limits": {"max_file": 3}}).to_string()
        )[0]
        .contains("did you mean `max_files`")
    );
}

#[test]
fn wrong_types_and_bad_enum_values_are_named() {
    let found = issues(
        &json!({"dry_run": "no", "batch": 1, "rollback": {"strategy": "undo"}, "limits": {"max_files": "10"},
                "validation": {"pre_conditions": "make", "expected_outcomes": [1]}})
        .to_string(),
    );
    let joined = found.join("\n");
    for expected in [
        "dry_run: \"no\" is not a boolean",
        "batch: 1 is not a boolean",
        "rollback.strategy: \"undo\" is not one of git_revert, file_backup, manual",
        "limits.max_files: \"10\" is not a whole number",
        "validation.pre_conditions: \"make\" is not a list",
        "validation.expected_outcomes[0]: 1 is not a string",
    ] {
        assert!(
            joined.contains(expected),
            "missing {expected:?} in\n{joined}"
        );
    }
    assert_eq!(found.len(), 6, "{joined}");
}

#[test]
fn all_problems_are_reported_at_once() {
    let found =
        issues(&json!({"limits": {"max_files": 0, "max_changes": 5000}, "bogus": 1}).to_string());
    assert_eq!(found.len(), 4, "{found:?}");
    let joined = found.join("\n");
    for expected in [
        "rollback: missing",
        "bogus: unknown field",
        "limits.max_files: 0",
        "limits.max_changes: 5000",
    ] {
        assert!(joined.contains(expected), "{joined}");
    }
}

#[test]
fn manual_needs_its_steps_and_commands_must_not_be_empty() {
    assert!(
        issues(r#"{"rollback": {"strategy": "manual"}}"#)[0]
            .starts_with("rollback.commands: [] is empty")
    );
    let found = issues(
        r#"{"rollback": {"strategy": "git_revert"}, "validation": {"pre_conditions": ["make", " "]}}"#,
    );
    assert!(
        found[0].starts_with("validation.pre_conditions[1]: \"\" is empty"),
        "{found:?}"
    );
}

#[test]
fn malformed_json_is_one_clear_issue() {
    let found = issues("{\"rollback\": ");
    assert_eq!(found.len(), 1);
    assert!(
        found[0].starts_with("(document): not valid JSON"),
        "{found:?}"
    );
    assert!(issues("[1]")[0].starts_with("(document): [1] is not an object"));
}

#[test]
fn the_builder_checks_like_the_parser() {
    let plan = ExecutionPlan::builder()
        .dry_run(false)
        .timeout_seconds(60)
        .rollback(RollbackStrategy::GitRevert)
        .build()
        .unwrap();
    assert!(!plan.dry_run);
    assert_eq!(plan.limits.timeout_seconds, 60);
    assert_eq!(
        plan,
        ExecutionPlan::from_json(&serde_json::to_string(&plan).unwrap()).unwrap()
    );
    let errors: Vec<String> = ExecutionPlan::builder()
        .max_files(0)
        .timeout_seconds(301)
        .build()
        .unwrap_err()
        .iter()
        .map(ToString::to_string)
        .collect();
    let from_json = issues(r#"{"limits": {"max_files": 0, "timeout_seconds": 301}}"#);
    let mut a = errors.clone();
    let mut b = from_json.clone();
    a.sort();
    b.sort();
    assert_eq!(a, b, "builder and parser agree");
}

#[test]
fn the_schema_is_draft_2020_12_and_describes_every_field() {
    let schema = ExecutionPlan::json_schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    fn walk(v: &serde_json::Value, path: &str, missing: &mut Vec<String>) {
        if let Some(props) = v.get("properties").and_then(|p| p.as_object()) {
            for (name, prop) in props {
                if prop.get("description").is_none() {
                    missing.push(format!("{path}.{name}"));
                }
            }
        }
        if let Some(obj) = v.as_object() {
            // `if`/`then` restate fields as conditions; the fields themselves
            // are described where they are defined.
            for (k, child) in obj
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "if" | "then"))
            {
                walk(child, &format!("{path}/{k}"), missing);
            }
        }
    }
    let mut missing = Vec::new();
    walk(&schema, "", &mut missing);
    assert!(
        missing.is_empty(),
        "fields without a description: {missing:?}"
    );
}

#[test]
fn the_exported_schema_and_the_rust_checks_agree_on_samples() {
    let schema = ExecutionPlan::json_schema();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let samples = [
        json!({"rollback": {"strategy": "git_revert"}}),
        json!({"dry_run": false, "batch": true, "rollback": {"strategy": "file_backup"},
               "limits": {"max_files": 100, "max_changes": 1000, "timeout_seconds": 300},
               "validation": {"pre_conditions": ["make lint"], "expected_outcomes": ["make test"]}}),
        json!({"rollback": {"strategy": "manual", "commands": ["git revert HEAD"]}}),
        json!({}),
        json!({"rollback": {"strategy": "undo"}}),
        json!({"rollback": {"strategy": "git_revert"}, "extra": 1}),
        json!({"rollback": {"strategy": "git_revert"}, "limits": {"max_files": 0}}),
        json!({"rollback": {"strategy": "git_revert"}, "limits": {"max_files": 101}}),
        json!({"rollback": {"strategy": "git_revert"}, "limits": {"max_changes": 1001}}),
        json!({"rollback": {"strategy": "git_revert"}, "limits": {"timeout_seconds": 0}}),
        json!({"rollback": {"strategy": "git_revert"}, "limits": {"max_files": 2.5}}),
        json!({"rollback": {"strategy": "git_revert"}, "dry_run": "yes"}),
        json!({"rollback": {"strategy": "git_revert", "x": 1}}),
        json!({"rollback": {"strategy": "git_revert"}, "validation": {"pre_conditions": [3]}}),
        json!({"rollback": {"strategy": "manual"}}),
        json!({"rollback": {"strategy": "manual", "commands": []}}),
        json!({"rollback": {"strategy": "git_revert"}, "validation": {"expected_outcomes": ["  "]}}),
        json!({"rollback": {"strategy": "git_revert", "commands": [""]}}),
        json!([]),
        json!({"rollback": {"strategy": "git_revert"}, "limits": {"max_files": 10.0}}),
        json!({"rollback": {"strategy": "git_revert"}, "limits": {"max_files": 1e3}}),
    ];
    for sample in samples {
        let ours = ExecutionPlan::from_json(&sample.to_string()).is_ok();
        let theirs = validator.is_valid(&sample);
        assert_eq!(ours, theirs, "disagreement on {sample}");
    }
}
