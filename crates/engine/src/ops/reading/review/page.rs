//! A file's hunks a page at a time: the review page draws the first page
//! of a file at once and asks for the next when the reader scrolls near
//! it, so a file of 20,000 changed lines opens as fast as one of 20.

use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::view::{self, Hunk};

/// The most diff lines (hunk headers not counted) one page carries.
pub const PAGE_LINES: usize = 500;

/// Lines `[from, from + PAGE_LINES)` of one file's diff, counted over all
/// its hunks' lines.
#[derive(Debug, Clone, Serialize)]
pub struct FilePage {
    pub path: String,
    /// The hunks with a line on this page, cut to the page; the first is
    /// `cont` when it continues the previous page's last hunk.
    pub hunks: Vec<Hunk>,
    /// The first line of this page.
    pub from: usize,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<usize>,
    /// Lines of the whole file's diff.
    pub total_lines: usize,
}

/// Files kept by the review page between their pages.
const KEPT: usize = 4;

/// The numbered hunks of the files last asked for, by proposal commit and
/// path, newest last: a long file's diff is computed for its first page
/// only, not once per page.
/// Cloned into each request's use case: the clones share what is kept.
#[derive(Clone, Default)]
pub struct RecentFiles(Arc<Mutex<Kept>>);

/// The files kept, by key, newest last.
type Kept = Vec<(String, Arc<Vec<Hunk>>)>;

impl RecentFiles {
    /// The hunks kept under `key`, or those `compute` gives (`None`: no
    /// such file, nothing kept).
    pub fn get_or(
        &self,
        key: String,
        compute: impl FnOnce() -> crate::error::Result<Option<Vec<Hunk>>>,
    ) -> crate::error::Result<Option<Arc<Vec<Hunk>>>> {
        let kept = |files: &mut Vec<(String, Arc<Vec<Hunk>>)>| {
            let at = files.iter().position(|(k, _)| *k == key)?;
            let entry = files.remove(at);
            files.push(entry.clone());
            Some(entry.1)
        };
        if let Some(hunks) = kept(&mut self.0.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(Some(hunks));
        }
        // Computed unlocked: another file's page need not wait for it.
        let Some(hunks) = compute()? else {
            return Ok(None);
        };
        Ok(Some(self.keep(key, hunks)))
    }

    /// Keeps `hunks` under `key` (the oldest file kept makes room).
    pub fn keep(&self, key: String, hunks: Vec<Hunk>) -> Arc<Vec<Hunk>> {
        let hunks = Arc::new(hunks);
        let mut files = self.0.lock().unwrap_or_else(|e| e.into_inner());
        files.retain(|(k, _)| *k != key);
        if files.len() >= KEPT {
            files.remove(0);
        }
        files.push((key, hunks.clone()));
        hunks
    }
}

/// Cuts `hunks` (numbered, not yet word-marked) to the page at `from`,
/// and marks the changed words of its lines (pairs are found in the whole
/// hunk, so a pair cut by the page edge is marked as when shown whole).
pub fn cut(path: &str, hunks: &[Hunk], from: usize) -> FilePage {
    let total_lines = hunks.iter().map(|h| h.lines.len()).sum();
    let to = from.saturating_add(PAGE_LINES).min(total_lines);
    let mut page = Vec::new();
    let mut start = 0; // the first line of the current hunk
    for h in hunks {
        let end = start + h.lines.len();
        if end > from && start < to {
            let (a, b) = (from.max(start) - start, to.min(end) - start);
            page.push(page_of(h, a..b));
        }
        start = end;
    }
    FilePage {
        path: path.to_string(),
        hunks: page,
        from,
        next: (to < total_lines).then_some(to),
        total_lines,
    }
}

/// Lines `within` of hunk `h`, words marked: only those lines are
/// copied (one hunk of a 20,000-line file is 40,000 lines; each page
/// copied them all).
fn page_of(h: &Hunk, within: std::ops::Range<usize>) -> Hunk {
    let mut lines = h.lines[within.clone()].to_vec();
    for (old, new) in view::partners(&h.lines, within.clone()) {
        let (w_old, w_new) = view::word_marks(&h.lines[old].t, &h.lines[new].t);
        for (at, w) in [(old, w_old), (new, w_new)] {
            if within.contains(&at) {
                lines[at - within.start].w = w;
            }
        }
    }
    Hunk {
        header: h.header.clone(),
        old_start: h.old_start,
        old_lines: h.old_lines,
        new_start: h.new_start,
        new_lines: h.new_lines,
        lines,
        cont: within.start > 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::file_hunks;

    fn numbered(old: &str, new: &str) -> Vec<Hunk> {
        view::number_lines(file_hunks(old.as_bytes(), new.as_bytes()).unwrap())
    }

    fn lines(n: usize, word: &str) -> String {
        (0..n)
            .map(|i| format!("let v{i} = {word}({i});\n"))
            .collect()
    }

    #[test]
    fn pages_cover_every_line_once_and_say_where_the_next_starts() {
        let (old, new) = (lines(800, "alpha"), lines(800, "beta"));
        let whole = view::number(file_hunks(old.as_bytes(), new.as_bytes()).unwrap());
        let total: usize = whole.iter().map(|h| h.lines.len()).sum();
        assert_eq!(total, 1600);
        let mut got = Vec::new();
        let mut at = Some(0);
        let mut pages = 0;
        while let Some(from) = at {
            let page = cut("a.rs", &numbered(&old, &new), from);
            assert!(page.hunks.iter().map(|h| h.lines.len()).sum::<usize>() <= PAGE_LINES);
            assert_eq!(page.total_lines, 1600);
            assert_eq!(page.hunks[0].cont, from > 0, "one hunk, cut");
            got.extend(page.hunks.into_iter().flat_map(|h| h.lines));
            at = page.next;
            pages += 1;
        }
        assert_eq!(pages, 4);
        let want: Vec<_> = whole.into_iter().flat_map(|h| h.lines).collect();
        assert_eq!(
            format!("{got:?}"),
            format!("{want:?}"),
            "same lines, same word marks"
        );
    }

    #[test]
    fn a_page_past_the_end_is_empty_and_last() {
        let page = cut("a.rs", &numbered("a\n", "b\n"), 10);
        assert!(page.hunks.is_empty());
        assert_eq!(page.next, None);
        assert_eq!(page.total_lines, 2);
    }
}

#[cfg(test)]
mod recent_tests {
    use super::*;

    #[test]
    fn a_kept_file_is_not_computed_again_and_the_oldest_goes_first() {
        let recent = RecentFiles::default();
        let mut computed = 0;
        let mut get = |key: &str| {
            recent
                .get_or(key.to_string(), || {
                    computed += 1;
                    Ok(Some(Vec::new()))
                })
                .unwrap()
                .unwrap();
        };
        for key in ["a", "a", "b", "c", "d", "a", "e", "b"] {
            get(key);
        }
        // a b c d kept; a again (kept, now newest); e pushes b out.
        assert_eq!(computed, 6);
        let none = recent.get_or("x".into(), || Ok(None)).unwrap();
        assert!(none.is_none(), "no file: nothing kept");
    }
}
