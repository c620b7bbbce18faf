//! The bearer token of `git evolv mcp --http`: generated on first start,
//! kept in `<git-dir>/evolv/mcp-http-token` (mode 0600, created that way,
//! never widened), shown once when it is made. A host that is configured
//! with it keeps working across restarts; deleting the file makes a new one.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::web::security::{random_hex, write_private};

/// Where the token lives, under the repository's git directory.
pub fn path(git_dir: &Path) -> PathBuf {
    git_dir.join("evolv").join("mcp-http-token")
}

/// The stored token, or a new one (then `true`: the caller shows it once).
/// A file that is not a token, or that others may read, is refused rather
/// than trusted or silently replaced.
pub fn load_or_create(git_dir: &Path) -> Result<(String, bool)> {
    let file = path(git_dir);
    match std::fs::read_to_string(&file) {
        Ok(text) => {
            let mode = std::fs::metadata(&file)
                .map_err(|e| Error::io("read", &file, e))?
                .permissions()
                .mode();
            if mode & 0o077 != 0 {
                return Err(Error::invalid(
                    format!(
                        "{} is readable by other users (mode {:o})",
                        file.display(),
                        mode & 0o777
                    ),
                    format!(
                        "run `chmod 600 {}`, or delete it to get a new token",
                        file.display()
                    ),
                ));
            }
            let token = text.trim();
            if token.len() < 32 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(Error::invalid(
                    format!("{} does not hold a token", file.display()),
                    "delete it; the next `git evolv mcp --http` makes a new one",
                ));
            }
            Ok((token.to_string(), false))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((create(&file)?, true)),
        Err(e) => Err(Error::io("read", &file, e)),
    }
}

/// Writes a fresh token, readable by its owner only.
fn create(file: &Path) -> Result<String> {
    let token = random_hex(32)?;
    write_private(file, format!("{token}\n").as_bytes())?;
    Ok(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_once_0600_then_reused_and_a_readable_file_is_refused() {
        let dir = std::env::temp_dir().join(format!("evolv-token-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (token, created) = load_or_create(&dir).unwrap();
        assert!(created);
        assert_eq!(token.len(), 64);
        let mode = std::fs::metadata(path(&dir)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(load_or_create(&dir).unwrap(), (token, false));
        std::fs::set_permissions(path(&dir), std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = load_or_create(&dir).unwrap_err().to_string();
        assert!(err.contains("readable by other users"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
