//! A list of globs as requests take it: one glob as a string
//! (`"backend/**/*.go"`, as seed 000 calls `propose_edit`) or several as an
//! array; an empty string or a missing field is none (every file).

use std::ops::Deref;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize};

/// Globs over repository-relative paths, in the order given (written
/// back as the array, so a schema can say its default).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Globs(pub Vec<String>);

impl Deref for Globs {
    type Target = Vec<String>;

    fn deref(&self) -> &Vec<String> {
        &self.0
    }
}

impl From<Vec<String>> for Globs {
    fn from(globs: Vec<String>) -> Self {
        Globs(globs)
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl<'de> Deserialize<'de> for Globs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match OneOrMany::deserialize(d) {
            Ok(OneOrMany::One(glob)) if glob.is_empty() => Ok(Globs::default()),
            Ok(OneOrMany::One(glob)) => Ok(Globs(vec![glob])),
            Ok(OneOrMany::Many(globs)) => Ok(Globs(globs)),
            Err(_) => Err(serde::de::Error::custom(
                "expected a glob (a string) or an array of globs",
            )),
        }
    }
}

impl JsonSchema for Globs {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Globs".into()
    }

    // Inlined where used: a field's description stays beside it.
    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        // A type list, not `anyOf`: several clients refuse a nested
        // `anyOf`, and one that cannot map the list (the MCP Inspector)
        // sends a string, which is taken as one glob.
        json_schema!({
            "type": ["string", "array"],
            "items": {"type": "string"}
        })
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    struct Request {
        #[serde(default)]
        scope: super::Globs,
    }

    fn scope(json: &str) -> Result<Vec<String>, String> {
        serde_json::from_str::<Request>(json)
            .map(|r| r.scope.0)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_string_is_one_glob_and_an_array_several() {
        assert_eq!(
            scope(r#"{"scope": "backend/**/*.go"}"#).unwrap(),
            ["backend/**/*.go"]
        );
        assert_eq!(
            scope(r#"{"scope": ["a/**", "b/*.rs"]}"#).unwrap(),
            ["a/**", "b/*.rs"]
        );
        assert!(scope(r#"{"scope": ""}"#).unwrap().is_empty());
        assert!(scope(r#"{}"#).unwrap().is_empty());
    }

    #[test]
    fn anything_else_says_what_is_expected() {
        let err = scope(r#"{"scope": 7}"#).unwrap_err();
        assert!(
            err.contains("expected a glob (a string) or an array of globs"),
            "{err}"
        );
    }
}

#[cfg(test)]
mod schema_tests {
    // Only its schema is read.
    #[allow(dead_code)]
    #[derive(schemars::JsonSchema, serde::Deserialize)]
    struct Request {
        #[serde(default)]
        scope: super::Globs,
    }

    #[test]
    fn the_schema_is_a_type_list() {
        let schema = schemars::schema_for!(Request);
        let scope = &schema.as_value()["properties"]["scope"];
        assert_eq!(
            scope["type"],
            serde_json::json!(["string", "array"]),
            "{scope}"
        );
    }
}
