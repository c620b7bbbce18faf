//! Codex's apply_patch dialect, case by case: each row is a base file, an
//! envelope and what Codex's own apply_patch makes of them (the bytes it
//! writes, or its refusal). The rows restate the scenarios of Codex's
//! tests (tests/fixtures/scenarios and the unit tests of its parser,
//! seek and update code) in our words, plus the cases issue 38 names.

use crate::patch::apply::apply;
use crate::patch::envelope::parse;

/// What Codex does with a row.
enum Expect {
    /// Writes these bytes.
    Bytes(&'static [u8]),
    /// Deletes the file.
    Deleted,
    /// Refuses the patch; the message holds this.
    Refused(&'static str),
}
use Expect::*;

struct Case {
    name: &'static str,
    /// The file `f` at the base, `None` when there is none.
    base: Option<&'static [u8]>,
    patch: &'static str,
    expect: Expect,
}

const fn case(
    name: &'static str,
    base: Option<&'static [u8]>,
    patch: &'static str,
    expect: Expect,
) -> Case {
    Case {
        name,
        base,
        patch,
        expect,
    }
}

const CASES: &[Case] = &[
    // Marker lines with surrounding whitespace.
    case(
        "a file header with leading spaces",
        Some(b"old\n"),
        "*** Begin Patch\n  *** Update File: f\n@@\n-old\n+new\n*** End Patch\n",
        Bytes(b"new\n"),
    ),
    case(
        "begin marker led by a space, end marker followed by one",
        Some(b"one\n"),
        " *** Begin Patch\n*** Update File: f\n@@\n-one\n+two\n*** End Patch \n",
        Bytes(b"two\n"),
    ),
    case(
        "begin marker followed by a space, end marker led by one",
        Some(b"one\n"),
        "*** Begin Patch \n*** Update File: f\n@@\n-one\n+two\n *** End Patch\n",
        Bytes(b"two\n"),
    ),
    case(
        "padded add file header",
        None,
        "*** Begin Patch\n\t*** Add File: f  \n+hi\n*** End Patch",
        Bytes(b"hi\n"),
    ),
    case(
        "padded delete file header",
        Some(b"bye\n"),
        "*** Begin Patch\n *** Delete File: f\n*** End Patch",
        Deleted,
    ),
    case(
        "the whole envelope indented by blank lines and spaces",
        Some(b"a\n"),
        "\n\n   *** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n*** End Patch\n\n  \n",
        Bytes(b"b\n"),
    ),
    case(
        "a heredoc around the envelope",
        Some(b"a\n"),
        "<<'EOF'\n*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n*** End Patch\nEOF\n",
        Bytes(b"b\n"),
    ),
    case(
        "an unquoted heredoc around the envelope",
        Some(b"a\n"),
        "<<EOF\n*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n*** End Patch\nEOF",
        Bytes(b"b\n"),
    ),
    case(
        "an indented heredoc opener and a closer followed by spaces",
        Some(b"a\n"),
        "  <<\"EOF\"\n*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n*** End Patch\nEOF  \n",
        Bytes(b"b\n"),
    ),
    case(
        "a heredoc too short to hold an envelope",
        None,
        "<<EOF\n*** Begin Patch\nEOF\n",
        Refused("EOF"),
    ),
    case(
        "a heredoc with mismatched quotes",
        Some(b"a\n"),
        "<<\"EOF'\n*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n*** End Patch\nEOF\n",
        Refused("*** Begin Patch"),
    ),
    // A blank line just before `*** End Patch`.
    case(
        "a blank line before the end marker is not a line the file must have",
        Some(b"a\nb\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n\n*** End Patch\n",
        Bytes(b"a\nB\n"),
    ),
    case(
        "a blank line before the end marker matches a blank line the file has",
        Some(b"a\nb\n\nc\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n\n*** End Patch\n",
        Bytes(b"a\nB\n\nc\n"),
    ),
    case(
        "a blank line before the end marker after added lines, with the end of file marker",
        Some(b"a\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n a\n+b\n\n*** End Patch\n",
        Bytes(b"a\nb\n"),
    ),
    case(
        "a blank line after an added file is refused",
        None,
        "*** Begin Patch\n*** Add File: f\n+x\n\n*** End Patch\n",
        Refused("not a file header"),
    ),
    // Lone CR, and CR, CRLF and LF mixed.
    case(
        "lines that end in a lone CR keep it",
        Some(b"a\rb\rc\r"),
        "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n c\n*** End Patch\n",
        Bytes(b"a\rB\rc\r"),
    ),
    case(
        "CR, CRLF and LF mixed: each kept line keeps its own, new lines take the first",
        Some(b"a\r\nb\nc\rd"),
        "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n c\n*** End Patch\n",
        Bytes(b"a\r\nB\r\nc\rd\r\n"),
    ),
    case(
        "a lone CR file with an added line",
        Some(b"one\rtwo\r"),
        "*** Begin Patch\n*** Update File: f\n@@\n one\n+one and a half\n two\n*** End Patch\n",
        Bytes(b"one\rone and a half\rtwo\r"),
    ),
    // Which line ending an unchanged context line keeps.
    case(
        "a context line keeps its CRLF in an LF file",
        Some(b"x\ny\r\nz\r\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n y\n-z\n+Z\n*** End Patch\n",
        Bytes(b"x\ny\r\nZ\n"),
    ),
    case(
        "a CRLF file stays CRLF",
        Some(b"one\r\ntwo\r\nthree\r\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n one\n-two\n+TWO\n three\n*** End Patch\n",
        Bytes(b"one\r\nTWO\r\nthree\r\n"),
    ),
    case(
        "a context line keeps its own text when found by a looser comparison",
        Some(b"say \xe2\x80\x9chi\xe2\x80\x9d  \nx\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n say \"hi\"\n-x\n+y\n*** End Patch\n",
        Bytes(b"say \xe2\x80\x9chi\xe2\x80\x9d  \ny\n"),
    ),
    // Whether an updated file ends with a newline.
    case(
        "an updated file always ends with a newline",
        Some(b"a\nb"),
        "*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\n*** End Patch\n",
        Bytes(b"A\nb\n"),
    ),
    case(
        "the newline added is the file's first line ending",
        Some(b"a\r\nb"),
        "*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\n*** End Patch\n",
        Bytes(b"A\r\nb\r\n"),
    ),
    case(
        "a file without any line ending gets LF",
        Some(b"no newline"),
        "*** Begin Patch\n*** Update File: f\n@@\n-no newline\n+still none\n*** End Patch\n",
        Bytes(b"still none\n"),
    ),
    case(
        "a file emptied by its update stays empty",
        Some(b"a\nb"),
        "*** Begin Patch\n*** Update File: f\n@@\n-a\n-b\n*** End Patch\n",
        Bytes(b""),
    ),
    // An addition-only chunk followed by a chunk matching earlier lines.
    case(
        "an addition-only chunk goes at the end and the next chunk may match before it",
        Some(b"a\nb\nc\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n+tail\n@@\n-a\n+A\n*** End Patch\n",
        Bytes(b"A\nb\nc\ntail\n"),
    ),
    case(
        "an addition-only chunk, then a chunk removing lines before it",
        Some(b"line1\nline2\nline3\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement\n*** End Patch\n",
        Bytes(b"line1\nline2-replacement\nafter-context\nsecond-line\n"),
    ),
    case(
        "an addition-only chunk pinned to the end of file",
        Some(b"foo\nbar\nbaz\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n+quux\n*** End of File\n*** End Patch\n",
        Bytes(b"foo\nbar\nbaz\nquux\n"),
    ),
    case(
        "a chunk ending in a context line and a blank line, at the end of the file",
        Some(b"foo\nbar\nbaz\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n-foo\n+FOO\n bar\n\n*** End Patch\n",
        Bytes(b"FOO\nbar\nbaz\n"),
    ),
    case(
        "an addition-only chunk after an anchor still goes at the end",
        Some(b"a\nb\nc\n"),
        "*** Begin Patch\n*** Update File: f\n@@ b\n+new\n*** End Patch\n",
        Bytes(b"a\nb\nc\nnew\n"),
    ),
    case(
        "an addition-only chunk on a file without a final newline",
        Some(b"line1\nline2"),
        "*** Begin Patch\n*** Update File: f\n@@\n+added line 1\n+added line 2\n*** End Patch\n",
        Bytes(b"line1\nline2\nadded line 1\nadded line 2\n"),
    ),
    case(
        "an addition-only chunk on an empty file",
        Some(b""),
        "*** Begin Patch\n*** Update File: f\n@@\n+x\n*** End Patch\n",
        Bytes(b"x\n"),
    ),
    // Unicode punctuation in the file where the patch has ASCII.
    case(
        "an en dash and a non-breaking hyphen match ASCII hyphens",
        Some("import asyncio  # local import \u{2013} avoids top\u{2011}level dep\n".as_bytes()),
        "*** Begin Patch\n*** Update File: f\n@@\n-import asyncio  # local import - avoids top-level dep\n+import asyncio  # HELLO\n*** End Patch\n",
        Bytes(b"import asyncio  # HELLO\n"),
    ),
    case(
        "curly quotes and a no-break space match ASCII",
        Some("let s = \u{2018}a\u{2019};\u{00a0}// \u{201c}b\u{201d}\nend\n".as_bytes()),
        "*** Begin Patch\n*** Update File: f\n@@\n-let s = 'a'; // \"b\"\n+let s = 'c';\n end\n*** End Patch\n",
        Bytes(b"let s = 'c';\nend\n"),
    ),
    case(
        "an exact match wins over an earlier punctuation match",
        Some("a \u{2014} b\na - b\n".as_bytes()),
        "*** Begin Patch\n*** Update File: f\n@@\n-a - b\n+X\n*** End Patch\n",
        Bytes("a \u{2014} b\nX\n".as_bytes()),
    ),
    // The rest of Codex's tests.
    case(
        "several chunks in one file",
        Some(b"foo\nbar\nbaz\nqux\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n foo\n-bar\n+BAR\n@@\n baz\n-qux\n+QUX\n*** End Patch\n",
        Bytes(b"foo\nBAR\nbaz\nQUX\n"),
    ),
    case(
        "interleaved changes and an addition at the end of file",
        Some(b"a\nb\nc\nd\ne\nf\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n*** End of File\n*** End Patch\n",
        Bytes(b"a\nB\nc\nd\nE\nf\ng\n"),
    ),
    case(
        "a deletion-only chunk",
        Some(b"line1\nline2\nline3\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n line1\n-line2\n line3\n*** End Patch\n",
        Bytes(b"line1\nline3\n"),
    ),
    case(
        "the end of file marker pins the chunk to the last lines",
        Some(b"x\ny\nx\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n-x\n+X\n*** End of File\n*** End Patch\n",
        Bytes(b"x\ny\nX\n"),
    ),
    case(
        "the first chunk may leave out its @@",
        Some(b"import foo\n"),
        "*** Begin Patch\n*** Update File: f\n import foo\n+bar\n*** End Patch\n",
        Bytes(b"import foo\nbar\n"),
    ),
    case(
        "lines found ignoring surrounding whitespace",
        Some(b"    foo   \n   bar\t\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n-foo\n-bar\n+baz\n*** End Patch\n",
        Bytes(b"baz\n"),
    ),
    case(
        "an added file gets a newline after each line",
        None,
        "*** Begin Patch\n*** Add File: f\n+ab\n+cd\n*** End Patch\n",
        Bytes(b"ab\ncd\n"),
    ),
    case(
        "an added file with no lines is empty",
        None,
        "*** Begin Patch\n*** Add File: f\n*** End Patch\n",
        Bytes(b""),
    ),
    // What Codex refuses.
    case(
        "lines that are not in the file",
        Some(b"line1\nline2\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n-missing\n+new\n*** End Patch\n",
        Refused("not in the file"),
    ),
    case(
        "an anchor that is not in the file",
        Some(b"a\n"),
        "*** Begin Patch\n*** Update File: f\n@@ nowhere\n-a\n+b\n*** End Patch\n",
        Refused("nowhere"),
    ),
    case(
        "an update with no chunk",
        Some(b"a\n"),
        "*** Begin Patch\n*** Update File: f\n*** End Patch\n",
        Refused("no chunk"),
    ),
    case(
        "a move with no chunk",
        Some(b"a\n"),
        "*** Begin Patch\n*** Update File: f\n*** Move to: g\n*** End Patch\n",
        Refused("no chunk"),
    ),
    case(
        "an @@ with no lines after it",
        Some(b"a\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n*** End Patch\n",
        Refused("no lines"),
    ),
    case(
        "an @@ followed at once by the end of file marker",
        Some(b"a\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n*** End of File\n*** End Patch\n",
        Refused("no lines"),
    ),
    case(
        "a chunk line that is not ' ', '-' or '+'",
        Some(b"a\n"),
        "*** Begin Patch\n*** Update File: f\n@@\nbad\n*** End Patch\n",
        Refused("must start with"),
    ),
    case(
        "an @@ glued to its anchor",
        Some(b"a\n"),
        "*** Begin Patch\n*** Update File: f\n@@a\n-a\n+b\n*** End Patch\n",
        Refused("must start with"),
    ),
    case(
        "a second chunk without its @@",
        Some(b"a\nb\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\nb\n*** End Patch\n",
        Refused("@@"),
    ),
    case(
        "an unknown file header",
        Some(b"a\n"),
        "*** Begin Patch\n*** Frobnicate File: f\n*** End Patch\n",
        Refused("not a file header"),
    ),
    case(
        "no end marker",
        None,
        "*** Begin Patch\n*** Add File: f\n+x\n",
        Refused("*** End Patch"),
    ),
    case(
        "text after the end marker",
        None,
        "*** Begin Patch\n*** Add File: f\n+x\n*** End Patch\ntrailing words\n",
        Refused("*** End Patch"),
    ),
    case(
        "an envelope that changes no file",
        None,
        "*** Begin Patch\n*** End Patch\n",
        Refused("changes no file"),
    ),
    case(
        "a base that is not UTF-8",
        Some(b"caf\xe9\n"),
        "*** Begin Patch\n*** Update File: f\n@@\n-caf\n+cafe\n*** End Patch\n",
        Refused("UTF-8"),
    ),
];

fn none(_: &[u8], _: usize) -> Option<Vec<u8>> {
    None
}

/// What git-evolv makes of `case`: the new content, `None` for a
/// deletion, or the refusal's message.
fn run(case: &Case) -> Result<Option<Vec<u8>>, String> {
    let files = parse(case.patch.as_bytes()).map_err(|e| e.to_string())?;
    assert_eq!(files.len(), 1, "{}: one file per row", case.name);
    apply(&files[0], "f", case.base, &none).map_err(|e| e.to_string())
}

#[test]
fn every_row_does_what_codex_does() {
    let mut wrong = Vec::new();
    for case in CASES {
        let got = run(case);
        let ok = match (&case.expect, &got) {
            (Bytes(want), Ok(Some(have))) => have.as_slice() == *want,
            (Deleted, Ok(None)) => true,
            (Refused(part), Err(message)) => message.contains(part),
            _ => false,
        };
        if !ok {
            let want = match &case.expect {
                Bytes(b) => format!("{:?}", String::from_utf8_lossy(b)),
                Deleted => "deleted".into(),
                Refused(part) => format!("refused with `{part}`"),
            };
            let have = match &got {
                Ok(Some(b)) => format!("{:?}", String::from_utf8_lossy(b)),
                Ok(None) => "deleted".into(),
                Err(message) => format!("refused: {message}"),
            };
            wrong.push(format!("{}:\n  want {want}\n  have {have}", case.name));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} rows differ from Codex:\n{}",
        wrong.len(),
        CASES.len(),
        wrong.join("\n")
    );
}

/// Envelopes and files made of the dialect's awkward pieces, thousands of
/// them: each is applied or refused, never a panic.
#[test]
fn no_envelope_or_file_makes_it_panic() {
    const PIECES: [&str; 16] = [
        "@@",
        "@@ a",
        "@@a",
        " a",
        "-a",
        "+a",
        "",
        "  ",
        "*** End of File",
        " ",
        "-",
        "+",
        "-\u{2013}",
        " b\r",
        "*** Update File: f",
        "*** Move to: g",
    ];
    const FILES: [&[u8]; 6] = [b"", b"a", b"a\n", b"a\r\nb\rc\n", b"\n\n", b"b\ra"];
    let mut seed: u64 = 38;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    for _ in 0..5000 {
        let mut text = String::from("*** Begin Patch\n*** Update File: f\n");
        for _ in 0..next(8) {
            text.push_str(PIECES[next(PIECES.len())]);
            text.push('\n');
        }
        text.push_str("*** End Patch\n");
        let base = FILES[next(FILES.len())];
        if let Ok(files) = parse(text.as_bytes()) {
            for file in &files {
                let _ = apply(file, "f", Some(base), &none);
            }
        }
    }
}
