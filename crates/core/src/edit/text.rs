//! Byte-level facts about a text file that edits must keep: the UTF-8 BOM,
//! the line ending, line numbers of byte offsets.

/// The UTF-8 byte order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The length of a leading BOM (0 or 3).
pub fn bom_len(content: &[u8]) -> usize {
    if content.starts_with(BOM) {
        BOM.len()
    } else {
        0
    }
}

/// Whether the file's line ending is CRLF: more `\r\n` than lone `\n`.
pub fn is_crlf(content: &[u8]) -> bool {
    let mut crlf = 0usize;
    let mut lf = 0usize;
    for (i, &b) in content.iter().enumerate() {
        if b == b'\n' {
            if i > 0 && content[i - 1] == b'\r' {
                crlf += 1;
            } else {
                lf += 1;
            }
        }
    }
    crlf > 0 && crlf >= lf
}

/// `text` with every lone `\n` turned into `\r\n` when `crlf`.
pub fn to_eol(text: &str, crlf: bool) -> String {
    if !crlf || !text.contains('\n') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut prev = '\0';
    for c in text.chars() {
        if c == '\n' && prev != '\r' {
            out.push('\r');
        }
        out.push(c);
        prev = c;
    }
    out
}

/// The 1-based line of byte offset `at`.
pub fn line_of(content: &[u8], at: usize) -> usize {
    1 + content[..at.min(content.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// The number of lines as people count them (a final line without a
/// newline counts; an empty file has none).
pub fn line_count(content: &[u8]) -> usize {
    let newlines = content.iter().filter(|&&b| b == b'\n').count();
    if content.is_empty() || content.ends_with(b"\n") {
        newlines
    } else {
        newlines + 1
    }
}

/// `s` cut to `max` characters, with an ellipsis when cut.
pub fn excerpt(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max).collect();
        out.push('…');
        out
    }
}

/// A replaced byte range of a file: `start..end` of the input became
/// `new_len` bytes. Used for same-line warnings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Change {
    pub edit: usize,
    pub start: usize,
    pub end: usize,
    pub new_len: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_endings_and_counts() {
        assert!(is_crlf(b"a\r\nb\r\n"));
        assert!(!is_crlf(b"a\nb\r\n\n"));
        assert_eq!(to_eol("a\nb\r\nc", true), "a\r\nb\r\nc");
        assert_eq!(line_count(b"a\nb"), 2);
        assert_eq!(line_count(b"a\nb\n"), 2);
        assert_eq!(line_count(b""), 0);
        assert_eq!(line_of(b"a\nb\nc", 4), 3);
    }
}
