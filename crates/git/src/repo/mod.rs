//! The repository handle and what it knows: opening (or making) a
//! repository, the handle itself (`handle`), what it learns once and
//! keeps (`learnt`: settings from config, facts of its file system), its
//! snapshot of the index (`index`), the attribute sources a path may have
//! (`attr_sources`, `attr_index`), and the durability policy its writes
//! follow (`durable`). Nothing here is process-wide.

pub(crate) mod attr_index;
pub(crate) mod attr_sources;
pub mod durable;
pub(crate) mod handle;
pub(crate) mod index;
pub(crate) mod learnt;
pub(crate) mod open;
