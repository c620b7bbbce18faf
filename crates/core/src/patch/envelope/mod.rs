//! The `*** Begin Patch` … `*** End Patch` envelope of OpenAI's apply_patch
//! tool, which Codex models write: `*** Add File:` (every line `+`),
//! `*** Delete File:`, `*** Update File:` (optionally `*** Move to:`) with
//! chunks of ` `, `-` and `+` lines, each chunk optionally after an `@@`
//! line naming a context line to find first, and `*** End of File` to pin
//! a chunk to the end.
//!
//! Codex's own apply_patch is the reference for this dialect: an envelope
//! it accepts gives the bytes it writes (with line endings kept, as its
//! `apply_patch_preserve_line_endings` mode keeps them), and one it refuses
//! is refused. [`parse`] reads the text, [`seek`] finds lines, [`text`]
//! keeps each line's ending and [`update`] applies the chunks.

mod parse;
mod seek;
mod text;
mod update;

pub use parse::{opens_envelope, parse};
pub use update::apply_chunks;

/// One chunk of an `Update File`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The `@@ <line>` anchor: found first, the chunk looked for after it.
    pub anchor: Option<String>,
    pub old: Vec<String>,
    pub new: Vec<String>,
    /// Where each context line is: its index in `old` and in `new`. The
    /// file keeps those lines as they are.
    pub context: Vec<(usize, usize)>,
    /// `*** End of File`: the old lines end the file.
    pub at_end: bool,
    /// The patch's line the chunk starts on.
    pub line: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::apply::apply;

    fn none(_: &[u8], _: usize) -> Option<Vec<u8>> {
        None
    }

    const PATCH: &str = "*** Begin Patch
*** Add File: hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-print(\"Hi\")
+print(\"Hello, world!\")
*** Delete File: obsolete.txt
*** End Patch
";

    #[test]
    fn the_tools_own_example_reads_and_applies() {
        let files = parse(PATCH.as_bytes()).unwrap();
        assert_eq!(files.len(), 3);
        assert_eq!(files[0].new_path.as_deref(), Some("hello.txt"));
        assert_eq!(
            apply(&files[0], "hello.txt", None, &none).unwrap().unwrap(),
            b"Hello world\n"
        );
        let app =
            b"import x\n\ndef greet():\n    print(\"Hi\")\n\ndef other():\n    print(\"Hi\")\n";
        let out = apply(&files[1], "src/app.py", Some(app), &none)
            .unwrap()
            .unwrap();
        assert_eq!(
            out,
            b"import x\n\ndef greet():\nprint(\"Hello, world!\")\n\ndef other():\n    print(\"Hi\")\n",
            "found after the anchor, ignoring the indentation the model left out"
        );
        assert_eq!(files[1].new_path.as_deref(), Some("src/main.py"));
        assert_eq!(
            apply(&files[2], "obsolete.txt", Some(b"x\n"), &none).unwrap(),
            None
        );
    }

    #[test]
    fn crlf_is_kept_and_a_missing_final_newline_added_as_codex_adds_it() {
        let files =
            parse(b"*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n*** End Patch\n").unwrap();
        let out = apply(&files[0], "f", Some(b"a\r\nb\r\nc"), &none)
            .unwrap()
            .unwrap();
        assert_eq!(out, b"a\r\nB\r\nc\r\n");
    }

    #[test]
    fn lines_that_are_not_there_name_the_closest() {
        let files = parse(b"*** Begin Patch\n*** Update File: f\n@@\n-gone\n+new\n*** End Patch\n")
            .unwrap();
        let err = apply(&files[0], "f", Some(b"a\ngon\n"), &none).unwrap_err();
        assert!(err.message.contains("closest"), "{err}");
        assert!(parse(b"*** Begin Patch\n*** Frobnicate: f\n*** End Patch\n").is_err());
        assert!(
            parse(b"*** Begin Patch\n*** Add File: f\n+x\n").is_err(),
            "no end"
        );
    }
}

#[cfg(test)]
mod dialect_tests;
