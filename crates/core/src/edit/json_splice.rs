//! One JSON object's members by byte span, so that a notebook cell edit
//! can replace one member's value, add one or take one away and leave
//! every other byte of the file as it was: key order, escapes (`\u00e9`,
//! `\/`), one-line objects and CRLF line ends included.

use super::json_order::Reader;

/// A member of an object, as spans of the text.
struct Member {
    key: String,
    /// Where its key's opening quote stands.
    start: usize,
    /// Its value: `value.0..value.1`.
    value: (usize, usize),
}

/// An object's members, and the text the edits are made on.
pub(super) struct Splice<'t> {
    text: &'t str,
    members: Vec<Member>,
    /// Replacements of `text`: `(start, end, new text)`, not overlapping.
    edits: Vec<(usize, usize, String)>,
}

impl<'t> Splice<'t> {
    /// The members of the object that starts at byte `at` of `text`
    /// (text serde_json has accepted).
    pub(super) fn object(text: &'t str, at: usize) -> Option<Self> {
        let mut r = Reader { text, pos: at };
        r.expect(b'{')?;
        let mut members = Vec::new();
        if r.peek()? == b'}' {
            return Some(Splice {
                text,
                members,
                edits: Vec::new(),
            });
        }
        loop {
            r.peek()?;
            let start = r.pos;
            let key = r.string()?;
            r.expect(b':')?;
            r.peek()?;
            let value_start = r.pos;
            r.value()?;
            members.push(Member {
                key,
                start,
                value: (value_start, r.pos),
            });
            match r.peek()? {
                b',' => r.pos += 1,
                b'}' => break,
                _ => return None,
            }
        }
        Some(Splice {
            text,
            members,
            edits: Vec::new(),
        })
    }

    fn find(&self, key: &str) -> Option<usize> {
        self.members.iter().position(|m| m.key == key)
    }

    /// Sets `key`'s value to the JSON text `value`: in place when the
    /// object has it, else as a new member where sorted order puts it
    /// (Jupyter writes keys sorted), spaced as its neighbours are.
    pub(super) fn set(&mut self, key: &str, value: &str) {
        if let Some(i) = self.find(key) {
            let (s, e) = self.members[i].value;
            self.edits.push((s, e, value.to_string()));
            return;
        }
        let Some(first) = self.members.first() else {
            return;
        };
        let colon = &self.text[first.start + quoted_len(self.text, first.start)..first.value.0];
        let sep = match self.members.get(1) {
            Some(second) => &self.text[first.value.1..second.start],
            None => ", ",
        };
        let member = format!("{}{colon}{value}", json_string(key));
        match self.members.iter().position(|m| m.key.as_str() > key) {
            Some(i) => {
                let at = self.members[i].start;
                self.edits.push((at, at, format!("{member}{sep}")));
            }
            None => {
                let at = self.members.last().map_or(first.value.1, |m| m.value.1);
                self.edits.push((at, at, format!("{sep}{member}")));
            }
        }
    }

    /// Takes `key` away with the separator on one side of it.
    pub(super) fn remove(&mut self, key: &str) {
        let Some(i) = self.find(key) else { return };
        let span = if let Some(next) = self.members.get(i + 1) {
            (self.members[i].start, next.start)
        } else if i > 0 {
            (self.members[i - 1].value.1, self.members[i].value.1)
        } else {
            (self.members[i].start, self.members[i].value.1)
        };
        self.edits.push((span.0, span.1, String::new()));
    }

    /// The text `from..to` with the edits made.
    pub(super) fn apply(mut self, from: usize, to: usize) -> String {
        self.edits.sort_by_key(|e| (e.0, e.1));
        let mut out = String::with_capacity(to - from + 256);
        let mut at = from;
        for (s, e, new) in &self.edits {
            out.push_str(&self.text[at..*s]);
            out.push_str(new);
            at = *e;
        }
        out.push_str(&self.text[at..to]);
        out
    }
}

/// The length of the JSON string token that starts at `at`.
fn quoted_len(text: &str, at: usize) -> usize {
    let mut r = Reader { text, pos: at };
    r.string().map_or(0, |_| r.pos - at)
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

#[cfg(test)]
mod tests {
    use super::Splice;

    fn edited(text: &str, f: impl FnOnce(&mut Splice)) -> String {
        let mut s = Splice::object(text, 0).expect("an object");
        f(&mut s);
        s.apply(0, text.len())
    }

    #[test]
    fn only_the_named_members_change() {
        let text = "{\r\n \"a\": {\"x\": \"\\u00e9\\/\"},\r\n \"c\": 1,\r\n \"e\": []\r\n}";
        assert_eq!(
            edited(text, |s| s.set("c", "2")),
            "{\r\n \"a\": {\"x\": \"\\u00e9\\/\"},\r\n \"c\": 2,\r\n \"e\": []\r\n}"
        );
        assert_eq!(
            edited(text, |s| s.set("d", "null")),
            "{\r\n \"a\": {\"x\": \"\\u00e9\\/\"},\r\n \"c\": 1,\r\n \"d\": null,\r\n \"e\": []\r\n}"
        );
        assert_eq!(
            edited(text, |s| s.set("f", "0")),
            "{\r\n \"a\": {\"x\": \"\\u00e9\\/\"},\r\n \"c\": 1,\r\n \"e\": [],\r\n \"f\": 0\r\n}"
        );
        assert_eq!(
            edited(text, |s| s.remove("c")),
            "{\r\n \"a\": {\"x\": \"\\u00e9\\/\"},\r\n \"e\": []\r\n}"
        );
        assert_eq!(
            edited(text, |s| s.remove("e")),
            "{\r\n \"a\": {\"x\": \"\\u00e9\\/\"},\r\n \"c\": 1\r\n}"
        );
    }
}
