//! Text edits of files git does not treat as text (#16 item 3, for edit
//! lists): a file whose attributes give it a filter driver (an LFS pointer
//! is not the file's text), `binary` or `-text` is refused by the regex,
//! exact, range and notebook edits of `propose --edits`, as plain propose
//! skips it; `write`, `delete` and `rename` take the file as a whole and
//! stay allowed. Asks `git check-attr` once, for the files text edits
//! changed only.

use crate::edit::engine::EngineOutcome;
use crate::edit::failure::{EditCode, EditFailure};
use crate::edit::list::{Edit, EditList};
use crate::error::Result;
use crate::git::{self, Repo, RepoPath};

/// Moves every file a text edit changed that git does not treat as text
/// from `result.files` to `result.failures` (one `binary_file` failure per
/// such edit), so nothing of it is stored.
pub fn refuse_text_edits(repo: &Repo, req: &EditList, result: &mut EngineOutcome) -> Result<()> {
    let is_text_edit = |i: &usize| {
        !matches!(
            req.edits.get(*i),
            Some(Edit::Write { .. } | Edit::Delete { .. } | Edit::Rename { .. }) | None
        )
    };
    let edited: Vec<RepoPath> = result
        .files
        .iter()
        .filter(|f| f.new.is_some() && f.edits.iter().any(is_text_edit))
        .map(|f| RepoPath::from(f.path.as_str()))
        .collect();
    if edited.is_empty() {
        return Ok(());
    }
    let not_text = git::worktree::filters::not_text(repo, &edited.iter().collect::<Vec<_>>())?;
    if not_text.is_empty() {
        return Ok(());
    }
    let files = std::mem::take(&mut result.files);
    for file in files {
        let why = not_text.get(&RepoPath::from(file.path.as_str()));
        let Some(why) = why.filter(|_| file.edits.iter().any(is_text_edit)) else {
            result.files.push(file);
            continue;
        };
        for &i in &file.edits {
            result.applied.retain(|&a| a != i);
            result.failures.push(EditFailure::new(
                Some(i),
                &file.path,
                EditCode::BinaryFile,
                format!("edits[{i}]: {}: {why}, so it is not edited as text", file.path),
                "git-evolv edits only what git treats as text: replace the whole file with op \"write\", or run `git evolv propose -p … --include-filtered` to edit it as text anyway",
            ));
        }
    }
    result.failures.sort_by_key(|f| f.index);
    Ok(())
}
