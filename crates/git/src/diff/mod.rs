//! What differs between two trees, as people and git read it: git's patch
//! format (`patch`), the files of a review page (`files`), and three-way
//! merges and reverts (`merge`). Built on the tree comparison of `trees`;
//! writes nothing but new merge trees.

pub(crate) mod files;
pub(crate) mod merge;
pub(crate) mod patch;
