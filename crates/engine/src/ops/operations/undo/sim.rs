//! The refs as an undo's planned steps leave them (`plan`): each step is
//! decided on them, so a later step sees what the earlier ones did.

use std::collections::HashMap;

use crate::error::Result;
use crate::git::{Oid, Repo};

/// The refs as the steps planned so far leave them.
#[derive(Debug, Default)]
pub(super) struct Sim {
    refs: HashMap<String, Option<String>>,
}

impl Sim {
    /// `name` as the planned steps leave it.
    pub(super) fn get(&self, repo: &Repo, name: &str) -> Option<String> {
        match self.refs.get(name) {
            Some(value) => value.clone(),
            None => repo.ref_target(name).map(|o| o.to_string()),
        }
    }

    /// Where the planned steps moved `name`, if they moved it.
    pub(super) fn moved(&self, name: &str) -> Result<Option<Oid>> {
        self.refs
            .get(name)
            .and_then(|v| v.as_deref())
            .map(Oid::parse)
            .transpose()
    }

    pub(super) fn set(&mut self, name: &str, value: Option<String>) {
        self.refs.insert(name.to_string(), value);
    }
}
