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

/// Every id a client sent in `field` (one, an optional one or a list).
pub fn check_ids<'a>(field: &str, ids: impl IntoIterator<Item = &'a String>) -> Result<()> {
    ids.into_iter().try_for_each(|id| check_id(field, id))
}

/// Every repository-relative path or glob a client sent in `field`.
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
