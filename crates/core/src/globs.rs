//! A list of globs as requests take it: one glob as a string
//! (`"backend/**/*.go"`, as seed 000 calls `propose_edit`) or several as an
//! array. Used with `#[serde(deserialize_with = "globs::one_or_many")]` and
//! `#[schemars(schema_with = "globs::schema")]` on a `Vec<String>` field.

use schemars::{Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer};

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

/// One glob (an empty string is none: every file) or an array of them.
pub fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    match OneOrMany::deserialize(d) {
        Ok(OneOrMany::One(glob)) if glob.is_empty() => Ok(Vec::new()),
        Ok(OneOrMany::One(glob)) => Ok(vec![glob]),
        Ok(OneOrMany::Many(globs)) => Ok(globs),
        Err(_) => Err(serde::de::Error::custom(
            "expected a glob (a string) or an array of globs",
        )),
    }
}

/// What [`one_or_many`] accepts, for the JSON Schema of a request.
pub fn schema(_: &mut SchemaGenerator) -> Schema {
    // A type list, not `anyOf`: several clients refuse a nested `anyOf`,
    // and one that cannot map the list (the MCP Inspector) sends a string,
    // which is taken as one glob.
    json_schema!({
        "type": ["string", "array"],
        "items": {"type": "string"}
    })
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    struct Request {
        #[serde(default, deserialize_with = "super::one_or_many")]
        scope: Vec<String>,
    }

    fn scope(json: &str) -> Result<Vec<String>, String> {
        serde_json::from_str::<Request>(json)
            .map(|r| r.scope)
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
        #[serde(default, deserialize_with = "super::one_or_many")]
        #[schemars(schema_with = "super::schema")]
        scope: Vec<String>,
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
