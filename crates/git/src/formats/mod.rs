//! git's file formats, read and written as bytes: the index file
//! (`index`, read with gix-index, written by this project) and packs of
//! new objects with their index (`pack`). Codecs only: none opens a
//! repository, runs git or decides how far to flush; the caller hands in
//! the folder and the flush.

pub mod index;
pub mod pack;
