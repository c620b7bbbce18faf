//! Ref updates with compare-and-swap semantics.

use git2::{ErrorCode, Oid, Repository};

use crate::error::{Context, Error, Result};

/// Moves `name` from `expected` to `new`, failing with `ConcurrentUpdate`
/// when someone else moved it first. `expected = None` means the ref must
/// not exist yet.
pub fn compare_and_swap(
    repo: &Repository,
    name: &str,
    new: Oid,
    expected: Option<Oid>,
    message: &str,
) -> Result<()> {
    let result = match expected {
        Some(old) => repo.reference_matching(name, new, true, old, message),
        None => repo.reference(name, new, false, message),
    };
    match result {
        Ok(_) => Ok(()),
        Err(e)
            if matches!(
                e.code(),
                ErrorCode::Modified | ErrorCode::Exists | ErrorCode::Locked
            ) =>
        {
            Err(Error::ConcurrentUpdate {
                what: name.to_string(),
                expected: expected.map_or_else(|| "nothing".into(), |o| o.to_string()),
            })
        }
        Err(e) => Err(Error::GitLibrary {
            doing: format!("update ref {name} to {new}"),
            source: e,
        }),
    }
}

/// Whether a ref exists (and resolves to an object).
pub fn ref_exists(repo: &Repository, name: &str) -> bool {
    repo.refname_to_id(name).is_ok()
}

/// Points `name` at `new` whatever it held before (for git-evolv's own
/// bookkeeping refs, never for branches).
pub fn compare_and_swap_force(
    repo: &Repository,
    name: &str,
    new: Oid,
    message: &str,
) -> Result<()> {
    repo.reference(name, new, true, message)
        .context(|| format!("set ref {name} to {new}"))?;
    Ok(())
}

/// Deletes `name` if it exists.
pub fn delete_ref(repo: &Repository, name: &str) -> Result<bool> {
    match repo.find_reference(name) {
        Ok(mut r) => {
            r.delete().context(|| format!("delete ref {name}"))?;
            Ok(true)
        }
        Err(e) if e.code() == ErrorCode::NotFound => Ok(false),
        Err(e) => Err(Error::GitLibrary {
            doing: format!("read ref {name}"),
            source: e,
        }),
    }
}
