//! Repository paths as git stores them: bytes, not text (#16 item 7). A
//! tree entry's name is any byte string without `/` or NUL, so a file named
//! `caf\xe9.txt` (Latin-1) or a directory `d\xffir` is as real as any other,
//! and git checks it out on Linux. Everything that lands files carries a
//! `RepoPath`; text appears only where a person or a JSON reader looks:
//!
//! - people: `Display`, git's `quote_c_style` (what `git status` and
//!   `git diff` print): a name with a control character, `"`, `\` or a byte
//!   that is not UTF-8 is put in double quotes with C escapes and octal
//!   (`"caf\351.txt"`); valid UTF-8 letters stay as they are, as with
//!   `core.quotePath=false` (invalid bytes are always escaped: text output
//!   cannot carry them raw);
//! - JSON: the lossy UTF-8 string (U+FFFD for invalid bytes) plus, only for
//!   names that are not UTF-8, the exact bytes in lowercase hex
//!   (`path_bytes`, or a `<field>_bytes` column beside a list);
//! - the landing journal and proposal metadata: the same two forms, so an
//!   older reader still sees the UTF-8 names it always saw.
//!
//! Pure: no I/O.

use std::borrow::Cow;
use std::fmt;
use std::path::Path;

/// A repository-relative path, `/`-separated, exactly as git stores it.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RepoPath(Vec<u8>);

impl RepoPath {
    /// The path with these bytes.
    pub fn from_bytes(bytes: impl Into<Vec<u8>>) -> Self {
        RepoPath(bytes.into())
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The path as text, when it is valid UTF-8.
    pub fn to_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    /// The path as text, invalid bytes replaced by U+FFFD: for matching
    /// globs (consistently) and for JSON's display field, never for naming
    /// a file.
    pub fn lossy(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.0)
    }

    /// The exact bytes in hex when the path is not UTF-8 (what JSON's
    /// `path_bytes` carries), `None` when `lossy` is already exact.
    pub fn hex_if_not_utf8(&self) -> Option<String> {
        self.to_str().is_none().then(|| hex(&self.0))
    }

    /// The path on this platform's file system, relative to the working tree.
    pub fn fs(&self) -> &Path {
        fs_path(&self.0)
    }

    /// `<self>/<name>`, or `name` at the top.
    pub fn join(&self, name: &[u8]) -> RepoPath {
        let mut out = Vec::with_capacity(self.0.len() + 1 + name.len());
        if !self.0.is_empty() {
            out.extend_from_slice(&self.0);
            out.push(b'/');
        }
        out.extend_from_slice(name);
        RepoPath(out)
    }

    /// Whether this is a `.gitattributes` file (at any depth).
    pub fn is_gitattributes(&self) -> bool {
        self.0 == b".gitattributes" || self.0.ends_with(b"/.gitattributes")
    }

    /// git's `quote_c_style` of the path (see the module comment).
    pub fn quoted(&self) -> Cow<'_, str> {
        quote(&self.0)
    }
}

pub use evolv_core::fs_path::fs_path;

impl From<&str> for RepoPath {
    fn from(s: &str) -> Self {
        RepoPath(s.as_bytes().to_vec())
    }
}

impl From<String> for RepoPath {
    fn from(s: String) -> Self {
        RepoPath(s.into_bytes())
    }
}

impl From<&[u8]> for RepoPath {
    fn from(b: &[u8]) -> Self {
        RepoPath(b.to_vec())
    }
}

impl AsRef<[u8]> for RepoPath {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl std::borrow::Borrow<[u8]> for RepoPath {
    fn borrow(&self) -> &[u8] {
        &self.0
    }
}

impl PartialEq<str> for RepoPath {
    fn eq(&self, other: &str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl PartialEq<&str> for RepoPath {
    fn eq(&self, other: &&str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.quoted())
    }
}

impl fmt::Debug for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RepoPath({})", quote_always(&self.0))
    }
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// The bytes of a hex string (either case); `None` if it is not hex.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    let digits = text.as_bytes();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    let value = |d: u8| (d as char).to_digit(16).map(|v| v as u8);
    digits
        .chunks(2)
        .map(|pair| Some(value(pair[0])? << 4 | value(pair[1])?))
        .collect()
}

/// git's `quote_c_style`: unchanged when nothing needs quoting, else in
/// double quotes with `\a \b \t \n \v \f \r \" \\` and octal escapes.
pub fn quote(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) if !text.bytes().any(needs_escape) => Cow::Borrowed(text),
        _ => Cow::Owned(quote_always(bytes)),
    }
}

fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == 0x7f || b == b'"' || b == b'\\'
}

fn quote_always(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\x07' => out.push_str("\\a"),
                '\x08' => out.push_str("\\b"),
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\x0b' => out.push_str("\\v"),
                '\x0c' => out.push_str("\\f"),
                '\r' => out.push_str("\\r"),
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 || c == '\x7f' => {
                    out.push_str(&format!("\\{:03o}", c as u32))
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\{b:03o}"));
        }
    }
    out.push('"');
    out
}

/// The `<field>_bytes` column for a list of paths: `None` (left out of
/// the JSON) when every name is UTF-8, else one entry per path, the hex of
/// its bytes or `None` for a UTF-8 name.
pub fn bytes_column(paths: &[RepoPath]) -> Option<Vec<Option<String>>> {
    paths
        .iter()
        .any(|p| p.to_str().is_none())
        .then(|| paths.iter().map(RepoPath::hex_if_not_utf8).collect())
}

/// The lossy display strings of `paths` (a list field's JSON form).
pub fn lossy_list(paths: &[RepoPath]) -> Vec<String> {
    paths.iter().map(|p| p.lossy().into_owned()).collect()
}

/// The paths a list field and its `_bytes` column describe: entry `i` is
/// the column's bytes when it has some, else the string itself.
pub fn from_columns(lossy: &[String], column: Option<&[Option<String>]>) -> Vec<RepoPath> {
    lossy
        .iter()
        .enumerate()
        .map(|(i, s)| {
            column
                .and_then(|c| c.get(i))
                .and_then(|h| h.as_deref())
                .and_then(unhex)
                .map_or_else(|| RepoPath::from(s.as_str()), RepoPath::from_bytes)
        })
        .collect()
}

/// The names a person reads for a list field and its `_bytes` column:
/// quoted as git quotes them.
pub fn shown(lossy: &[String], column: Option<&[Option<String>]>) -> Vec<String> {
    from_columns(lossy, column)
        .iter()
        .map(|p| p.quoted().into_owned())
        .collect()
}

/// Serde for the landing journal's paths: a UTF-8 path is a JSON string,
/// as it always was; any other is `{"hex": "<lowercase hex>"}`.
pub mod lossless {
    use super::{RepoPath, hex, unhex};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Form {
        Text(String),
        Bytes { hex: String },
    }

    pub fn serialize<S: Serializer>(path: &RepoPath, s: S) -> Result<S::Ok, S::Error> {
        match path.to_str() {
            Some(text) => Form::Text(text.to_string()),
            None => Form::Bytes {
                hex: hex(path.as_bytes()),
            },
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<RepoPath, D::Error> {
        match Form::deserialize(d)? {
            Form::Text(text) => Ok(RepoPath::from(text)),
            Form::Bytes { hex } => unhex(&hex)
                .map(RepoPath::from_bytes)
                .ok_or_else(|| serde::de::Error::custom("a path's hex is not hex")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_quoted_as_git_quotes_them() {
        // `git status --short` / `git diff` headers print these.
        assert_eq!(quote(b"plain/file.rs"), "plain/file.rs");
        assert_eq!(quote("café.txt".as_bytes()), "café.txt");
        assert_eq!(quote(b"caf\xe9.txt"), r#""caf\351.txt""#);
        assert_eq!(quote(b"d\xffir/x"), r#""d\377ir/x""#);
        assert_eq!(quote(b"a\\b"), r#""a\\b""#);
        assert_eq!(quote(b"t\tab\n"), r#""t\tab\n""#);
        assert_eq!(quote(b"q\"x"), r#""q\"x""#);
        assert_eq!(quote(b"\x01\x7f"), r#""\001\177""#);
    }

    #[test]
    fn hex_round_trips_and_rejects_junk() {
        let raw = b"caf\xe9.txt".to_vec();
        assert_eq!(hex(&raw), "636166e92e747874");
        assert_eq!(unhex("636166E92e747874"), Some(raw));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
    }

    #[test]
    fn journal_form_is_a_string_for_utf8_and_hex_otherwise() {
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        struct C {
            #[serde(with = "lossless")]
            path: RepoPath,
        }
        for (raw, json) in [
            (&b"src/a.rs"[..], r#"{"path":"src/a.rs"}"#),
            (
                b"d\xffir/caf\xe9",
                r#"{"path":{"hex":"64ff69722f636166e9"}}"#,
            ),
        ] {
            let c = C {
                path: RepoPath::from_bytes(raw),
            };
            assert_eq!(serde_json::to_string(&c).unwrap(), json);
            assert_eq!(serde_json::from_str::<C>(json).unwrap(), c);
        }
        assert!(serde_json::from_str::<C>(r#"{"path":{"hex":"6"}}"#).is_err());
    }

    #[test]
    fn list_columns_carry_only_what_text_cannot() {
        let paths = vec![RepoPath::from("a"), RepoPath::from_bytes(&b"caf\xe9"[..])];
        let lossy = lossy_list(&paths);
        assert_eq!(lossy, ["a", "caf\u{fffd}"]);
        let column = bytes_column(&paths).unwrap();
        assert_eq!(column, [None, Some("636166e9".to_string())]);
        assert_eq!(from_columns(&lossy, Some(&column)), paths);
        assert_eq!(shown(&lossy, Some(&column)), ["a", r#""caf\351""#]);
        assert_eq!(bytes_column(&paths[..1]), None);
    }
}
