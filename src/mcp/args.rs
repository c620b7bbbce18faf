//! What tools share about their arguments: none at all, and the checks of
//! what only a client is refused (an id that reads as an option, a path
//! that leaves the repository), field by field.

use schemars::JsonSchema;

use crate::error::Result;
use crate::ops::permissions::{check_id, check_path};

/// Tools without arguments.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// Every id a client sent in `field` (an optional one or a list).
pub fn check_ids<'a>(field: &str, ids: impl IntoIterator<Item = &'a String>) -> Result<()> {
    ids.into_iter().try_for_each(|id| check_id(field, id))
}

/// Every repository-relative path or glob a client sent in `field` (an
/// optional one or a list).
pub fn check_paths<'a>(field: &str, paths: impl IntoIterator<Item = &'a String>) -> Result<()> {
    paths
        .into_iter()
        .try_for_each(|path| check_path(field, path))
}

/// The proposals a tool was given as `patch_id` and `patch_ids`, in that
/// order; empty when neither was.
pub fn patch_ids(one: &Option<String>, many: &Option<Vec<String>>) -> Vec<String> {
    one.iter().chain(many.iter().flatten()).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::{check_ids, check_paths, patch_ids};

    #[test]
    fn patch_ids_are_the_one_then_the_list() {
        let ids = patch_ids(&Some("a".into()), &Some(vec!["b".into(), "c".into()]));
        assert_eq!(ids, ["a", "b", "c"]);
        assert!(patch_ids(&None, &None).is_empty());
    }

    #[test]
    fn a_refused_value_is_named_with_its_field() {
        let ids = vec!["patch_1".to_string(), "-x".to_string()];
        let err = check_ids("patch_ids", &ids).unwrap_err();
        assert!(
            err.to_string().contains("argument `patch_ids`: '-x'"),
            "{err}"
        );
        assert!(check_paths("path", &Some("../up".to_string())).is_err());
        assert!(check_paths("path", &None::<String>).is_ok());
    }
}
