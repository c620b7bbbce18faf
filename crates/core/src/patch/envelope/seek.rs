//! Finds a chunk's lines in a file as Codex does: four passes, each looser
//! than the one before, and the first pass that finds the lines anywhere
//! wins (so an exact match later in the file beats a loose one earlier).

/// The passes, strictest first: exactly; without trailing whitespace;
/// without surrounding whitespace; without surrounding whitespace and with
/// typographic punctuation read as its ASCII look-alike.
const PASSES: [fn(&str, &str) -> bool; 4] = [
    |a, b| a == b,
    |a, b| a.trim_end() == b.trim_end(),
    |a, b| a.trim() == b.trim(),
    |a, b| {
        let (a, b) = (a.trim().chars(), b.trim().chars());
        a.map(ascii_look_alike).eq(b.map(ascii_look_alike))
    },
];

/// Where `wanted` starts in `lines`, at or after `from`. With `at_end`
/// (`*** End of File`) the lines must end the file: the only start tried is
/// the last one, unless that is before `from`.
pub fn seek(lines: &[String], wanted: &[String], from: usize, at_end: bool) -> Option<usize> {
    if wanted.is_empty() {
        return Some(from);
    }
    let last = lines.len().checked_sub(wanted.len())?;
    let first = if at_end { last.max(from) } else { from };
    PASSES.iter().find_map(|same| {
        (first..=last).find(|&at| wanted.iter().zip(&lines[at..]).all(|(w, l)| same(w, l)))
    })
}

/// The ASCII character models write for `c`: dashes and the minus sign
/// as `-`, curly quotes as `'` and `"`, odd spaces as a space.
fn ascii_look_alike(c: char) -> char {
    match c {
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{2018}'..='\u{201B}' => '\'',
        '\u{201C}'..='\u{201F}' => '"',
        '\u{00A0}' | '\u{2002}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[&str]) -> Vec<String> {
        text.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn each_pass_is_tried_over_the_whole_file_before_the_next() {
        let file = lines(&["a \u{2013} b", "  a - b", "a - b\t"]);
        assert_eq!(
            seek(&file, &lines(&["a - b\t"]), 0, false),
            Some(2),
            "exact"
        );
        assert_eq!(
            seek(&file, &lines(&["a - b"]), 0, false),
            Some(2),
            "trailing"
        );
        assert_eq!(
            seek(&file, &lines(&["  a - b "]), 0, false),
            Some(1),
            "trailing"
        );
        let file = lines(&["a \u{2013} b", "  a - b"]);
        assert_eq!(
            seek(&file, &lines(&["a - b"]), 0, false),
            Some(1),
            "surrounding"
        );
        let file = lines(&["a \u{2013} b"]);
        assert_eq!(seek(&file, &lines(&["a - b"]), 0, false), Some(0));
    }

    #[test]
    fn the_search_starts_at_from_and_an_end_anchor_tries_the_end_only() {
        let file = lines(&["x", "y", "x"]);
        assert_eq!(seek(&file, &lines(&["x"]), 1, false), Some(2));
        assert_eq!(seek(&file, &lines(&["x"]), 0, true), Some(2));
        assert_eq!(seek(&file, &lines(&["y"]), 0, true), None);
        assert_eq!(seek(&file, &lines(&["x"]), 3, false), None);
        assert_eq!(seek(&file, &lines(&["a", "b", "c", "d"]), 0, false), None);
    }

    #[test]
    fn only_the_listed_punctuation_is_read_as_ascii() {
        let file = lines(&["\u{201C}q\u{201D} \u{2018}s\u{2019}\u{00A0}\u{2212}1"]);
        assert_eq!(seek(&file, &lines(&["\"q\" 's' -1"]), 0, false), Some(0));
        let file = lines(&["\u{00AB}q\u{00BB}"]);
        assert_eq!(seek(&file, &lines(&["\"q\""]), 0, false), None);
    }
}
