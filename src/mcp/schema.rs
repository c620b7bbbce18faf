//! JSON Schemas of tool inputs and outputs, generated from the Rust types,
//! and argument parsing that names the field at fault.
//!
//! Schemas are inlined (no `$ref`/`$defs`: several clients do not resolve
//! them), every object schema says `"type": "object"`, and the boolean
//! `true` schema never appears (clients reject it).

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::Error;

/// The input schema of `T` (what deserialising `T` accepts).
pub fn input<T: JsonSchema>() -> Arc<JsonObject> {
    let schema = generate::<T>(SchemaSettings::draft2020_12().for_deserialize());
    let mut value = Value::Object(Arc::unwrap_or_clone(schema));
    not_null(&mut value);
    let Value::Object(object) = value else {
        unreachable!("not_null keeps an object an object")
    };
    Arc::new(object)
}

/// The output schema of `T` (what serialising `T` writes).
pub fn output<T: JsonSchema>() -> Arc<JsonObject> {
    let mut schema = generate::<T>(SchemaSettings::draft2020_12().for_serialize());
    merge_shapes(Arc::make_mut(&mut schema));
    schema
}

/// An output of several shapes (`anyOf` at the root: `apply_edit` answers
/// one id, several, or a started task) as one object schema that admits
/// each: every property any shape has, required only where all require
/// it. MCP wants an object outputSchema, and clients refuse `anyOf`.
fn merge_shapes(schema: &mut JsonObject) {
    let Some(Value::Array(shapes)) = schema.remove("anyOf") else {
        return;
    };
    let mut properties = JsonObject::new();
    let mut required: Option<Vec<Value>> = None;
    for shape in &shapes {
        if let Some(Value::Object(props)) = shape.get("properties") {
            for (name, prop) in props {
                properties
                    .entry(name.clone())
                    .or_insert_with(|| prop.clone());
            }
        }
        let here = match shape.get("required") {
            Some(Value::Array(names)) => names.clone(),
            _ => Vec::new(),
        };
        required = Some(match required {
            None => here,
            Some(all) => all.into_iter().filter(|n| here.contains(n)).collect(),
        });
    }
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(properties));
    if let Some(required) = required.filter(|r| !r.is_empty()) {
        schema.insert("required".into(), Value::Array(required));
    }
}

fn generate<T: JsonSchema>(settings: SchemaSettings) -> Arc<JsonObject> {
    let generator = settings
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut value =
        serde_json::to_value(generator.into_root_schema_for::<T>()).expect("a schema serialises");
    tidy(&mut value);
    let Value::Object(mut object) = value else {
        unreachable!("tidy keeps the root an object schema")
    };
    // The root's title and description are the Rust type's name and doc.
    object.remove("title");
    object.remove("description");
    object.remove("$schema");
    Arc::new(object)
}

/// Flattens what schemars nests and clients stumble on: `true` schemas
/// become typed ones, untyped object schemas get `"type": "object"`, a
/// `oneOf` of string constants becomes an `enum`, an optional field's
/// `anyOf [schema, null]` becomes the schema with null added to its type,
/// and Rust integer formats (`uint64`) go.
fn tidy(value: &mut Value) {
    match value {
        Value::Bool(true) => *value = serde_json::json!({"type": "object"}),
        Value::Object(map) => {
            if let Some(Value::Array(branches)) = map.get("oneOf")
                && let Some(consts) = branches
                    .iter()
                    .map(|b| match (b.get("const"), b.get("enum")) {
                        (Some(c), _) if c.is_string() => Some(vec![c.clone()]),
                        (None, Some(Value::Array(e))) if e.iter().all(Value::is_string) => {
                            Some(e.clone())
                        }
                        _ => None,
                    })
                    .collect::<Option<Vec<Vec<Value>>>>()
                    .map(|v| v.concat())
            {
                map.remove("oneOf");
                map.insert("type".into(), "string".into());
                map.insert("enum".into(), Value::Array(consts));
            }
            if let Some(Value::Array(branches)) = map.get("anyOf")
                && branches.len() == 2
                && branches[1] == serde_json::json!({"type": "null"})
                && let Value::Object(inner) = branches[0].clone()
            {
                map.remove("anyOf");
                let mut inner_value = Value::Object(inner);
                tidy(&mut inner_value);
                let Value::Object(mut inner) = inner_value else {
                    unreachable!("tidy keeps an object schema an object")
                };
                // Keep null allowed: serde writes and accepts it for `None`.
                if let Some(Value::String(t)) = inner.get("type").cloned() {
                    inner.insert("type".into(), serde_json::json!([t, "null"]));
                }
                if let Some(Value::Array(e)) = inner.get_mut("enum") {
                    e.push(Value::Null);
                }
                for (k, v) in inner {
                    map.entry(k).or_insert(v);
                }
                return tidy(value);
            }
            if map
                .get("format")
                .and_then(Value::as_str)
                .is_some_and(|f| f.starts_with("int") || f.starts_with("uint"))
            {
                map.remove("format");
            }
            if map.contains_key("properties") && !map.contains_key("type") {
                map.insert("type".into(), "object".into());
            }
            for (key, child) in map.iter_mut() {
                match key.as_str() {
                    "properties" | "patternProperties" | "$defs" => {
                        if let Value::Object(props) = child {
                            props.values_mut().for_each(tidy);
                        }
                    }
                    // `additionalProperties: false` is a real constraint.
                    "additionalProperties" if child == &Value::Bool(false) => {}
                    "enum" | "const" | "default" | "examples" | "required" => {}
                    _ => tidy(child),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(tidy),
        _ => {}
    }
}

/// An optional argument is typed as what it holds (`"integer"`), not
/// `["integer", "null"]`: it is optional by being left out of `required`.
/// Clients that build forms from the schema (the MCP Inspector) cannot map
/// a type list and send such a field as a string (issue 25).
fn not_null(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Array(types)) = map.get_mut("type") {
                types.retain(|t| t != "null");
                if let [only] = types.as_slice() {
                    let only = only.clone();
                    map.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                values.retain(|v| !v.is_null());
            }
            for (key, child) in map.iter_mut() {
                if !matches!(
                    key.as_str(),
                    "enum" | "const" | "default" | "examples" | "required"
                ) {
                    not_null(child);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(not_null),
        _ => {}
    }
}

/// A string argument where the schema says integer or number (`"1"`), as
/// form-based clients send them, is taken as that number when it is one.
fn numbers_from_strings(schema: &JsonObject, arguments: &mut JsonObject) {
    let Some(Value::Object(properties)) = schema.get("properties") else {
        return;
    };
    for (name, value) in arguments.iter_mut() {
        let Value::String(text) = &*value else {
            continue;
        };
        let kind = properties
            .get(name)
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str);
        let number = match kind {
            Some("integer") => text.trim().parse::<i64>().ok().map(Value::from),
            Some("number") => text.trim().parse::<f64>().ok().map(Value::from),
            _ => None,
        };
        if let Some(number) = number {
            *value = number;
        }
    }
}

/// Deserialises tool arguments; a bad argument is `invalid_input` naming
/// the field (`execution_plan.limits.max_files: invalid type …`).
pub fn parse_args<T: DeserializeOwned + JsonSchema>(
    tool: &str,
    arguments: Option<JsonObject>,
) -> Result<T, Error> {
    let mut arguments = arguments.unwrap_or_default();
    // The schema is built only when a string could stand for a number.
    if arguments.values().any(Value::is_string) {
        numbers_from_strings(&input::<T>(), &mut arguments);
    }
    let value = Value::Object(arguments);
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        let message = if path == "." || path.is_empty() {
            format!("{tool}: {inner}")
        } else {
            format!("{tool}: argument `{path}`: {inner}")
        };
        Error::InvalidInput {
            message,
            hint: format!("see the inputSchema of `{tool}` in tools/list"),
        }
    })
}
