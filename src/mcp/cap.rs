//! What a tool result is capped at, and how: a client reads a result
//! whole into its context, so a long diff or file is cut at a line end and
//! the result says so.

/// The default cap of a diff in a tool result: 64 KiB.
pub const DEFAULT_MAX_DIFF_BYTES: usize = 64 * 1024;

/// The most paths a tool result lists; the statistics count them all.
pub const MAX_LISTED_FILES: usize = 1000;

/// Cuts `list` to its first `max` entries; returns whether it cut.
pub fn cap_list<T>(list: &mut Vec<T>, max: usize) -> bool {
    let cut = list.len() > max;
    list.truncate(max);
    cut
}

/// Cuts `text` to at most `max` bytes at a line end (or a character
/// boundary when the first line is longer); returns whether it cut.
pub fn cap(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if let Some(nl) = text[..end].rfind('\n') {
        end = nl + 1;
    }
    text.truncate(end);
    true
}

#[cfg(test)]
mod tests {
    use super::cap;

    #[test]
    fn cap_cuts_at_a_line_end_and_keeps_short_text() {
        let mut t = "one\ntwo\nthree\n".to_string();
        assert!(cap(&mut t, 10));
        assert_eq!(t, "one\ntwo\n");
        let mut short = "a\n".to_string();
        assert!(!cap(&mut short, 10));
        assert_eq!(short, "a\n");
        let mut wide = "ééé".to_string();
        assert!(cap(&mut wide, 3));
        assert_eq!(wide, "é");
    }
}
