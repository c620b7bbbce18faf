//! Plans from JSON, checked structurally against a field table (unknown
//! fields, types, required fields) and then by `ExecutionPlan::validate`,
//! so every problem is reported at once and each value rule lives in one
//! place.

use serde_json::{Map, Value};

use super::{ExecutionPlan, PlanIssue, RollbackStrategy};

#[derive(Clone, Copy)]
enum Kind {
    Bool,
    Int,
    Commands,
    Strategy,
    Object(&'static [Field]),
}

#[derive(Clone, Copy)]
struct Field {
    name: &'static str,
    kind: Kind,
    required: bool,
}

const fn field(name: &'static str, kind: Kind) -> Field {
    Field {
        name,
        kind,
        required: false,
    }
}

const VALIDATION: &[Field] = &[
    field("pre_conditions", Kind::Commands),
    field("expected_outcomes", Kind::Commands),
];
const ROLLBACK: &[Field] = &[
    Field {
        name: "strategy",
        kind: Kind::Strategy,
        required: true,
    },
    field("commands", Kind::Commands),
];
const LIMITS: &[Field] = &[
    field("max_files", Kind::Int),
    field("max_changes", Kind::Int),
    field("timeout_seconds", Kind::Int),
];
const PLAN: &[Field] = &[
    field("dry_run", Kind::Bool),
    field("validation", Kind::Object(VALIDATION)),
    Field {
        name: "rollback",
        kind: Kind::Object(ROLLBACK),
        required: true,
    },
    field("limits", Kind::Object(LIMITS)),
    field("batch", Kind::Bool),
];

pub(super) fn missing_rollback() -> PlanIssue {
    PlanIssue::new(
        "rollback",
        "missing: every plan must say how it is undone, e.g. {\"strategy\": \"git_revert\"} (git_revert, file_backup or manual)",
    )
}

/// Parses `text`, reporting every problem.
pub(super) fn parse(text: &str) -> Result<ExecutionPlan, Vec<PlanIssue>> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| vec![PlanIssue::new("(document)", format!("not valid JSON: {e}"))])?;
    let mut issues = Vec::new();
    let mut cleaned = clean_object(&value, "", PLAN, &mut issues);
    // Stand-ins so the value rules can still run on the rest of the plan;
    // the issues above already say what is wrong with these fields.
    let rollback = cleaned
        .entry("rollback")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(r) = rollback {
        r.entry("strategy")
            .or_insert_with(|| Value::from("git_revert"));
    }
    let plan: ExecutionPlan = match serde_json::from_value(Value::Object(cleaned)) {
        Ok(plan) => plan,
        Err(e) => {
            issues.push(PlanIssue::new("(document)", e.to_string()));
            return Err(issues);
        }
    };
    plan.validated(issues)
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

fn describe(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}

/// Keeps the well-formed known fields of `value`, reporting the rest.
fn clean_object(
    value: &Value,
    path: &str,
    fields: &[Field],
    issues: &mut Vec<PlanIssue>,
) -> Map<String, Value> {
    let mut out = Map::new();
    let Value::Object(map) = value else {
        let at = if path.is_empty() { "(document)" } else { path };
        issues.push(PlanIssue::new(
            at,
            format!("{} is not an object", describe(value)),
        ));
        return out;
    };
    for (key, v) in map {
        let Some(f) = fields.iter().find(|f| f.name == key) else {
            let allowed: Vec<&str> = fields.iter().map(|f| f.name).collect();
            let hint = closest(key, &allowed)
                .map(|c| format!("; did you mean `{c}`?"))
                .unwrap_or_default();
            issues.push(PlanIssue::new(
                join(path, key),
                format!("unknown field (allowed: {}){hint}", allowed.join(", ")),
            ));
            continue;
        };
        let here = join(path, key);
        if let Some(kept) = clean_value(v, &here, f.kind, issues) {
            out.insert(key.clone(), kept);
        }
    }
    for f in fields
        .iter()
        .filter(|f| f.required && !map.contains_key(f.name))
    {
        if path.is_empty() && f.name == "rollback" {
            issues.push(missing_rollback());
        } else {
            issues.push(PlanIssue::new(
                join(path, f.name),
                format!(
                    "missing: it is required (one of {})",
                    RollbackStrategy::NAMES.join(", ")
                ),
            ));
        }
    }
    out
}

fn clean_value(v: &Value, path: &str, kind: Kind, issues: &mut Vec<PlanIssue>) -> Option<Value> {
    let bad = |issues: &mut Vec<PlanIssue>, expected: &str| {
        issues.push(PlanIssue::new(
            path,
            format!("{} is not {expected}", describe(v)),
        ));
        None
    };
    match kind {
        Kind::Bool if v.is_boolean() => Some(v.clone()),
        Kind::Bool => bad(issues, "a boolean (true or false)"),
        Kind::Int if v.is_i64() => Some(v.clone()),
        // JSON Schema counts 10.0 as an integer; so do we.
        Kind::Int
            if v.as_f64()
                .is_some_and(|f| f.fract() == 0.0 && f.abs() < 1e15) =>
        {
            Some(Value::from(v.as_f64().unwrap_or_default() as i64))
        }
        Kind::Int => bad(issues, "a whole number"),
        Kind::Strategy => match v.as_str().and_then(RollbackStrategy::from_name) {
            Some(_) => Some(v.clone()),
            None => bad(
                issues,
                &format!("one of {}", RollbackStrategy::NAMES.join(", ")),
            ),
        },
        Kind::Commands => {
            let Value::Array(items) = v else {
                return bad(issues, "a list of shell commands");
            };
            let mut kept = Vec::new();
            for (i, item) in items.iter().enumerate() {
                if item.is_string() {
                    kept.push(item.clone());
                } else {
                    issues.push(PlanIssue::new(
                        format!("{path}[{i}]"),
                        format!("{} is not a string", describe(item)),
                    ));
                }
            }
            Some(Value::Array(kept))
        }
        Kind::Object(fields) => Some(Value::Object(clean_object(v, path, fields, issues))),
    }
}

/// The allowed name within edit distance 2 of `key`, if any.
fn closest<'a>(key: &str, allowed: &[&'a str]) -> Option<&'a str> {
    allowed
        .iter()
        .map(|a| (edit_distance(key, a), *a))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, a)| a)
}

/// Levenshtein distance over chars.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
