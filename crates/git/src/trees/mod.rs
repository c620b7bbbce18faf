//! Trees: read in bulk (`read`, `scan`), looked up by path (`lookup`),
//! compared (`compare`), edited into new ones (`edit`), and checked for
//! what `git fsck` refuses in them (`check`, `gitmodules`). New tree
//! objects are written through `objects`.

pub(crate) mod check;
pub(crate) mod compare;
pub(crate) mod edit;
pub(crate) mod gitmodules;
pub(crate) mod lookup;
pub(crate) mod read;
pub(crate) mod scan;
