//! Patches as text, read and applied as git applies them: unified diffs as
//! `git diff` and `diff -u` write them (git's extended headers, binary
//! patches), `git format-patch` mailboxes, and the `*** Begin Patch`
//! envelope of OpenAI's apply_patch tool. Pure: text in, file changes
//! out; applying takes each file's base content from the caller.

pub mod apply;
pub mod binary;
pub mod envelope;
pub mod mbox;
pub mod names;
pub mod split;
pub mod unified;

/// One file a patch changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    /// The path before, `None` when the patch creates the file. Raw, as
    /// the patch spells it (prefixes are stripped by [`strip`]).
    pub old_path: Option<String>,
    /// The path after, `None` when the patch deletes the file.
    pub new_path: Option<String>,
    /// Modes from git's extended headers (`old mode`, `new file mode`, …).
    pub old_mode: Option<u32>,
    pub new_mode: Option<u32>,
    /// A copy (`copy from` / `copy to`): the old path stays.
    pub copy: bool,
    pub body: Body,
    /// The patch's line this file's part starts on (1-based), for errors.
    pub line: usize,
}

/// What a file's part of a patch says about its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// No content change: a rename, a copy or a mode change alone.
    Nothing,
    /// Unified diff hunks.
    Hunks(Vec<Hunk>),
    /// A `GIT binary patch`.
    Binary(binary::BinaryPatch),
    /// `Binary files a/x and b/y differ`: a change without its data.
    BinaryWithoutData,
    /// The whole new content (apply_patch's `Add File`).
    Content(Vec<u8>),
    /// apply_patch's `Update File` chunks.
    Chunks(Vec<envelope::Chunk>),
}

/// One `@@ -a,b +c,d @@` hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: usize,
    pub old_count: usize,
    pub new_start: usize,
    pub new_count: usize,
    /// Each line with its end of line as the file has it (none for a line
    /// marked `\ No newline at end of file`).
    pub lines: Vec<HunkLine>,
    /// The patch's line of the `@@` header (1-based).
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    Context(Vec<u8>),
    Remove(Vec<u8>),
    Add(Vec<u8>),
}

/// Why a patch cannot be read or applied: where, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchError {
    /// The file the failure is in, when there is one.
    pub path: Option<String>,
    /// The patch's line (1-based), when one is to blame.
    pub line: Option<usize>,
    pub message: String,
    /// The patch is well formed, but its lines are not in the file (the
    /// edit lists' `no_match`).
    pub no_match: bool,
}

impl PatchError {
    pub fn at(line: usize, message: impl Into<String>) -> Self {
        PatchError {
            path: None,
            line: Some(line),
            message: message.into(),
            no_match: false,
        }
    }

    pub fn in_file(path: &str, line: Option<usize>, message: impl Into<String>) -> Self {
        PatchError {
            path: Some(path.to_string()),
            line,
            message: message.into(),
            no_match: false,
        }
    }

    /// The lines a hunk or chunk needs are not in the file.
    pub fn not_found(path: &str, line: usize, message: impl Into<String>) -> Self {
        PatchError {
            no_match: true,
            ..PatchError::in_file(path, Some(line), message)
        }
    }
}

impl std::fmt::Display for PatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.path, self.line) {
            (Some(path), Some(line)) => write!(f, "{path} (patch line {line}): {}", self.message),
            (Some(path), None) => write!(f, "{path}: {}", self.message),
            (None, Some(line)) => write!(f, "patch line {line}: {}", self.message),
            (None, None) => f.write_str(&self.message),
        }
    }
}

/// `; the closest region is lines A-B, where line C differs: …` for lines
/// of a patch (`wanted`) that are not in `text`; empty when nothing is
/// alike. The edit lists' `no_match` says the same.
pub(crate) fn closest_region(text: &str, wanted: &str) -> String {
    match crate::edit::replace::closest(text, wanted) {
        Some(c) => format!(
            "; the closest region is lines {}-{}, where line {} differs: the patch expects `{}` but the file has `{}`",
            c.start_line,
            c.end_line,
            c.first_diff_line,
            c.expected.escape_debug(),
            c.found.escape_debug()
        ),
        None => String::new(),
    }
}

/// Which kind of text a patch is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `*** Begin Patch` … `*** End Patch`, bare or in a `<<EOF` heredoc.
    Envelope,
    /// `From <id> <date>` messages, as `git format-patch` writes them.
    Mailbox,
    /// A unified diff, git's or `diff -u`'s.
    Unified,
}

/// The kind of `text`, from its first lines.
pub fn detect(text: &[u8]) -> Format {
    let first = text
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
        .unwrap_or_default();
    if envelope::opens_envelope(first) {
        Format::Envelope
    } else if mbox::is_separator(first) {
        Format::Mailbox
    } else {
        Format::Unified
    }
}

/// Strips `level` leading components from each path of `files` (git
/// apply's `-p`), or detects the level as git does: `a/` and `b/` on every
/// name is level 1; otherwise a name that is a path at the base (`exists`)
/// as written is level 0, and level 1 only where stripping finds the file.
pub fn strip(
    files: &mut [FilePatch],
    level: Option<usize>,
    exists: &dyn Fn(&str) -> bool,
) -> Result<(), PatchError> {
    let level = level.unwrap_or_else(|| detect_level(files, exists));
    for file in files.iter_mut() {
        let line = file.line;
        for path in [&mut file.old_path, &mut file.new_path]
            .into_iter()
            .flatten()
        {
            *path = names::strip_components(path, level).ok_or_else(|| {
                PatchError::at(
                    line,
                    format!("'{path}' has fewer than {level} leading directories to strip"),
                )
            })?;
        }
    }
    Ok(())
}

fn detect_level(files: &[FilePatch], exists: &dyn Fn(&str) -> bool) -> usize {
    let old = || files.iter().filter_map(|f| f.old_path.as_deref());
    let new = || files.iter().filter_map(|f| f.new_path.as_deref());
    let any = old().chain(new()).next().is_some();
    if any && old().all(|p| p.starts_with("a/")) && new().all(|p| p.starts_with("b/")) {
        return 1;
    }
    let found_at =
        |level: usize| old().all(|p| names::strip_components(p, level).is_some_and(|p| exists(&p)));
    if !found_at(0) && old().next().is_some() && found_at(1) {
        1
    } else {
        0
    }
}
