//! A file as lines that remember their own line ending (LF, CRLF or a lone
//! CR), rebuilt as Codex rebuilds it when it keeps line endings: a line the
//! patch leaves alone (a context line included) keeps its ending, a line
//! the patch writes takes the file's first ending (LF when it has none),
//! and every line ends with one, the last included.

/// `(start, count, lines)`: the `count` lines from `start` become `lines`.
pub type Replacement = (usize, usize, Vec<String>);

pub struct TextFile {
    lines: Vec<(String, &'static str)>,
    /// The first ending in the file; LF when there is none.
    ending: &'static str,
}

impl TextFile {
    /// `text` split after each `\r\n`, `\r` or `\n`; a last line without
    /// an ending has `""`.
    pub fn parse(text: &str) -> TextFile {
        let mut lines = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let (line, ending, after) = match rest.find(['\r', '\n']) {
                Some(at) if rest[at..].starts_with("\r\n") => (&rest[..at], "\r\n", at + 2),
                Some(at) if rest[at..].starts_with('\r') => (&rest[..at], "\r", at + 1),
                Some(at) => (&rest[..at], "\n", at + 1),
                None => (rest, "", rest.len()),
            };
            lines.push((line.to_string(), ending));
            rest = &rest[after..];
        }
        let ending = lines
            .iter()
            .map(|(_, e)| *e)
            .find(|e| !e.is_empty())
            .unwrap_or("\n");
        TextFile { lines, ending }
    }

    /// Each line's text, without its ending.
    pub fn texts(&self) -> Vec<String> {
        self.lines.iter().map(|(l, _)| l.clone()).collect()
    }

    /// The file with `replacements` made (sorted by start, not
    /// overlapping), as bytes.
    pub fn replaced(self, replacements: &[Replacement]) -> Vec<u8> {
        let mut old = self.lines.into_iter();
        let mut at = 0;
        let mut out: Vec<(String, &'static str)> = Vec::new();
        for (start, count, new) in replacements {
            out.extend(old.by_ref().take(start.saturating_sub(at)));
            old.by_ref().take(*count).for_each(drop);
            out.extend(new.iter().map(|l| (l.clone(), self.ending)));
            at = at.max(*start) + count;
        }
        out.extend(old);
        let mut bytes = Vec::new();
        for (line, ending) in out {
            bytes.extend_from_slice(line.as_bytes());
            // Codex ends every line of an updated file, the last included.
            let ending = if ending.is_empty() {
                self.ending
            } else {
                ending
            };
            bytes.extend_from_slice(ending.as_bytes());
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_line_keeps_its_ending_and_new_lines_take_the_first() {
        let file = TextFile::parse("a\rb\r\nc\nd");
        assert_eq!(file.texts(), ["a", "b", "c", "d"]);
        let out = file.replaced(&[(1, 1, vec!["B".into(), "B2".into()])]);
        assert_eq!(out, b"a\rB\rB2\rc\nd\r");
        assert_eq!(TextFile::parse("").replaced(&[]), b"");
        let none = TextFile::parse("x");
        assert_eq!(none.replaced(&[(1, 0, vec!["y".into()])]), b"x\ny\n");
    }
}
