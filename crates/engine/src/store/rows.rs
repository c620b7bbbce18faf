//! Every proposal ref as the row `list` prints, read through the list
//! cache: only commits the cache does not hold are inflated and parsed.

use super::PROPOSALS_PREFIX;
use super::list_cache::{self, Row};
use super::proposals::{self, PatchId, Proposal, Unreadable};
use crate::error::Result;
use crate::git::Repo;

/// One readable proposal ref and its row.
#[derive(Debug, Clone)]
pub struct Listed {
    pub id: PatchId,
    pub row: Row,
}

/// Every proposal ref: the readable ones as rows, oldest first, and the
/// others (as [`proposals::listing`] sorts and splits them).
#[derive(Debug, Default)]
pub struct Rows {
    pub rows: Vec<Listed>,
    pub unreadable: Vec<Unreadable>,
}

impl Row {
    /// `p`'s row.
    pub fn of(p: &Proposal) -> Row {
        Row {
            commit: p.commit,
            base: p.base,
            summary: p.summary.clone(),
            created_at: p.meta.created_at,
            files_matched: p.meta.files_matched,
            lines_added: p.meta.lines_added,
            lines_removed: p.meta.lines_removed,
            affected_files: p.meta.affected_files.clone(),
            affected_files_bytes: p.meta.affected_files_bytes.clone(),
            onto: p.meta.onto.clone(),
        }
    }
}

/// Every proposal ref as a row. The cache is rewritten when a commit had
/// to be read or a cached commit is no longer named by any ref.
pub fn rows(repo: &Repo) -> Result<Rows> {
    let refs = repo.refs_under(PROPOSALS_PREFIX)?;
    let mut cached = list_cache::read(repo);
    let mut out = Rows::default();
    let mut read_slowly = 0usize;
    for (name, target) in refs {
        let id = name
            .strip_prefix(PROPOSALS_PREFIX)
            .unwrap_or(&name)
            .to_string();
        // A row moves out of the map: what is left at the end is stale.
        if let Some(row) = cached.remove(&target) {
            out.rows.push(Listed {
                id: PatchId::of_ref(id),
                row,
            });
            continue;
        }
        match proposals::read_ref(repo, &id, target) {
            Ok(p) => {
                read_slowly += 1;
                out.rows.push(Listed {
                    row: Row::of(&p),
                    id: p.id,
                });
            }
            Err(unreadable) => out.unreadable.push(*unreadable),
        }
    }
    if read_slowly > 0 || !cached.is_empty() {
        list_cache::write(repo, out.rows.iter().map(|l| &l.row));
    }
    out.rows
        .sort_by(|a, b| (a.row.created_at, &a.id).cmp(&(b.row.created_at, &b.id)));
    Ok(out)
}
