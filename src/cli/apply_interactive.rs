//! `apply -i`: the proposal's changes asked about one by one, with the keys
//! `git add -p` uses (y, n, q, a, d, s, ?). What is chosen lands; the rest
//! stays pending (`ops::applying::apply::part`).

use std::collections::VecDeque;
use std::io::{self, BufRead, Write};

use crate::patch::split::split_hunk;
use crate::patch::{Body, FilePatch, Hunk, HunkLine};

const HELP: &str = "y - apply this hunk
n - do not apply this hunk
q - quit; do not apply this hunk or any of the remaining ones
a - apply this hunk and all later hunks in the file
d - do not apply this hunk or any of the later hunks in the file
s - split the current hunk into smaller hunks
? - print help
";

/// What one answer decides.
enum Answer {
    Yes,
    No,
    Quit,
    All,
    Done,
    Split,
}

/// Asks about each change of `files` on `input`/`out`; the chosen ones, a
/// file with only its chosen hunks. End of input answers `q`.
pub fn choose(
    files: Vec<FilePatch>,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<Vec<FilePatch>> {
    let mut chosen = Vec::new();
    'files: for file in files {
        header(&file, out)?;
        let Body::Hunks(hunks) = &file.body else {
            let prompt = format!("Apply this change to {} [y,n,q,?]? ", shown_path(&file));
            match ask(&prompt, false, input, out)? {
                Answer::Yes | Answer::All => chosen.push(file),
                Answer::Quit => break 'files,
                _ => {}
            }
            continue;
        };
        let mut queue: VecDeque<Hunk> = hunks.iter().cloned().collect();
        let mut picked: Vec<Hunk> = Vec::new();
        let mut shown = 0;
        while let Some(hunk) = queue.pop_front() {
            shown += 1;
            print_hunk(&hunk, out)?;
            let splittable = split_hunk(&hunk).len() > 1;
            let keys = if splittable {
                "y,n,q,a,d,s,?"
            } else {
                "y,n,q,a,d,?"
            };
            let prompt = format!(
                "({shown}/{}) Apply this hunk [{keys}]? ",
                shown + queue.len()
            );
            match ask(&prompt, splittable, input, out)? {
                Answer::Yes => picked.push(hunk),
                Answer::No => {}
                Answer::All => {
                    picked.push(hunk);
                    picked.extend(queue.drain(..));
                }
                Answer::Done => queue.clear(),
                Answer::Split => {
                    let parts = split_hunk(&hunk);
                    writeln!(out, "Split into {} hunks.", parts.len())?;
                    shown -= 1;
                    for part in parts.into_iter().rev() {
                        queue.push_front(part);
                    }
                }
                Answer::Quit => {
                    push_picked(&file, picked, &mut chosen);
                    break 'files;
                }
            }
        }
        push_picked(&file, picked, &mut chosen);
    }
    Ok(chosen)
}

fn push_picked(file: &FilePatch, picked: Vec<Hunk>, chosen: &mut Vec<FilePatch>) {
    if !picked.is_empty() {
        chosen.push(FilePatch {
            body: Body::Hunks(picked),
            ..file.clone()
        });
    }
}

/// Prompts until an answer it knows; `?` (and anything else) prints help.
fn ask(
    prompt: &str,
    splittable: bool,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<Answer> {
    loop {
        write!(out, "{prompt}")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(Answer::Quit);
        }
        match line.trim() {
            "y" => return Ok(Answer::Yes),
            "n" => return Ok(Answer::No),
            "q" => return Ok(Answer::Quit),
            "a" => return Ok(Answer::All),
            "d" => return Ok(Answer::Done),
            "s" if splittable => return Ok(Answer::Split),
            "s" => writeln!(out, "Sorry, cannot split this hunk")?,
            _ => write!(out, "{HELP}")?,
        }
    }
}

fn shown_path(file: &FilePatch) -> String {
    match (&file.old_path, &file.new_path) {
        (Some(old), Some(new)) if old != new => format!("{old} -> {new}"),
        (_, Some(path)) | (Some(path), None) => path.clone(),
        (None, None) => String::new(),
    }
}

fn header(file: &FilePatch, out: &mut dyn Write) -> io::Result<()> {
    let old = file.old_path.as_deref().unwrap_or("/dev/null");
    let new = file.new_path.as_deref().unwrap_or("/dev/null");
    writeln!(out, "diff --git a/{old} b/{new}")?;
    if let (Some(a), Some(b)) = (file.old_mode, file.new_mode)
        && a != b
    {
        writeln!(out, "old mode {a:o}\nnew mode {b:o}")?;
    }
    if matches!(file.body, Body::Binary(_) | Body::BinaryWithoutData) {
        writeln!(out, "Binary files differ")?;
    }
    Ok(())
}

fn print_hunk(hunk: &Hunk, out: &mut dyn Write) -> io::Result<()> {
    writeln!(
        out,
        "@@ -{},{} +{},{} @@",
        hunk.old_start, hunk.old_count, hunk.new_start, hunk.new_count
    )?;
    for line in &hunk.lines {
        let (mark, text) = match line {
            HunkLine::Context(t) => (' ', t),
            HunkLine::Remove(t) => ('-', t),
            HunkLine::Add(t) => ('+', t),
        };
        let text = String::from_utf8_lossy(text);
        writeln!(out, "{mark}{}", text.strip_suffix('\n').unwrap_or(&text))?;
    }
    Ok(())
}
