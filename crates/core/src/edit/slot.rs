//! One file's state while an edit list runs: its content so far, where
//! it came from, which edits changed it, and the lines each edit touched,
//! so a later edit of an earlier edit's lines is warned about.

use super::text::{Change, line_of};

#[derive(Debug, Clone)]
pub(super) struct Slot {
    pub(super) content: Option<Vec<u8>>,
    pub(super) mode: i32,
    pub(super) origin: Option<String>,
    /// Line spans (in the current content) earlier edits touched.
    spans: Vec<(usize, usize, usize)>,
    pub(super) edits: Vec<usize>,
    pub(super) warnings: Vec<String>,
}

impl Slot {
    pub(super) fn new(content: Option<Vec<u8>>, mode: i32, origin: Option<&str>) -> Self {
        Slot {
            content,
            mode,
            origin: origin.map(str::to_owned),
            spans: Vec::new(),
            edits: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Takes `new` as the content, warning when an edit touches a line an
    /// earlier edit touched, and moves the earlier spans to the new lines.
    pub(super) fn commit(&mut self, path: &str, input: &[u8], new: Vec<u8>, changes: &[Change]) {
        let mut sorted = changes.to_vec();
        sorted.sort_by_key(|c| (c.start, c.end));
        let newlines = |b: &[u8]| b.iter().filter(|&&x| x == b'\n').count() as isize;
        let (mut bdelta, mut ldelta) = (0isize, 0isize);
        let mut batch: Vec<(usize, usize, usize, isize)> = Vec::new();
        let mut fresh = Vec::new();
        for c in &sorted {
            let ls = line_of(input, c.start);
            let le = if c.end > c.start {
                line_of(input, c.end - 1)
            } else {
                ls
            };
            let earlier = self
                .spans
                .iter()
                .copied()
                .chain(batch.iter().map(|&(e, a, b, _)| (e, a, b)));
            for (e, a, b) in earlier {
                if e != c.edit && a <= le && ls <= b {
                    let (lo, hi) = (e.min(c.edit), e.max(c.edit));
                    let w = format!(
                        "edits[{lo}] and edits[{hi}] both touch line {} of {path}; edits[{hi}] applies to the result of edits[{lo}]",
                        ls.max(a)
                    );
                    if !self.warnings.contains(&w) {
                        self.warnings.push(w);
                    }
                }
            }
            let at = (c.start as isize + bdelta).max(0) as usize;
            let added = newlines(new.get(at..at + c.new_len).unwrap_or_default());
            let removed = newlines(&input[c.start..c.end]);
            let out_ls = (ls as isize + ldelta).max(1) as usize;
            fresh.push((c.edit, out_ls, out_ls + added.max(0) as usize));
            batch.push((c.edit, ls, le, added - removed));
            bdelta += c.new_len as isize - (c.end - c.start) as isize;
            ldelta += added - removed;
        }
        let mut spans: Vec<(usize, usize, usize)> = self
            .spans
            .iter()
            .filter(|&&(_, a, b)| !batch.iter().any(|&(_, ls, le, _)| a <= le && ls <= b))
            .map(|&(e, a, b)| {
                let d: isize = batch
                    .iter()
                    .filter(|&&(_, _, le, _)| le < a)
                    .map(|x| x.3)
                    .sum();
                (
                    e,
                    (a as isize + d).max(1) as usize,
                    (b as isize + d).max(1) as usize,
                )
            })
            .collect();
        spans.extend(fresh);
        self.spans = spans;
        for c in changes {
            if !self.edits.contains(&c.edit) {
                self.edits.push(c.edit);
            }
        }
        self.content = Some(new);
    }
}
