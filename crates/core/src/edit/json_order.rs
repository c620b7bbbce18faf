//! A JSON reader and writer that keep key order and the original number
//! text, so a notebook cell written back looks as Jupyter wrote it. Only
//! ever fed text that serde_json has already accepted as valid JSON.

/// A JSON value with its object keys in document order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// The number exactly as written.
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// The value of `key` in an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets `key`, keeping its place, or inserts it in sorted position
    /// (Jupyter writes keys sorted).
    pub fn set(&mut self, key: &str, value: Json) {
        if let Json::Obj(m) = self {
            if let Some(slot) = m.iter_mut().find(|(k, _)| k == key) {
                slot.1 = value;
            } else {
                let at = m
                    .iter()
                    .position(|(k, _)| k.as_str() > key)
                    .unwrap_or(m.len());
                m.insert(at, (key.to_string(), value));
            }
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// A cursor over JSON text.
pub struct Reader<'a> {
    pub text: &'a str,
    pub pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(text: &'a str) -> Self {
        Reader { text, pos: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// Skips whitespace; returns the next byte.
    pub fn peek(&mut self) -> Option<u8> {
        while let Some(&b) = self.bytes().get(self.pos) {
            if b.is_ascii_whitespace() {
                self.pos += 1;
            } else {
                return Some(b);
            }
        }
        None
    }

    /// Consumes `b` (after whitespace) or fails.
    pub fn expect(&mut self, b: u8) -> Option<()> {
        (self.peek()? == b).then(|| self.pos += 1)
    }

    /// Reads a string token.
    pub fn string(&mut self) -> Option<String> {
        self.peek()?;
        let start = self.pos;
        if self.bytes().get(self.pos) != Some(&b'"') {
            return None;
        }
        self.pos += 1;
        loop {
            match *self.bytes().get(self.pos)? {
                b'\\' => self.pos += 2,
                b'"' => {
                    self.pos += 1;
                    break;
                }
                _ => self.pos += 1,
            }
        }
        serde_json::from_str(&self.text[start..self.pos]).ok()
    }

    /// Reads any value.
    pub fn value(&mut self) -> Option<Json> {
        match self.peek()? {
            b'{' => {
                let mut m = Vec::new();
                self.items(b'}', |r| {
                    let k = r.string()?;
                    r.expect(b':')?;
                    m.push((k, r.value()?));
                    Some(())
                })?;
                Some(Json::Obj(m))
            }
            b'[' => {
                let mut v = Vec::new();
                self.items(b']', |r| {
                    v.push(r.value()?);
                    Some(())
                })?;
                Some(Json::Arr(v))
            }
            b'"' => self.string().map(Json::Str),
            b't' => self.word("true", Json::Bool(true)),
            b'f' => self.word("false", Json::Bool(false)),
            b'n' => self.word("null", Json::Null),
            _ => {
                let start = self.pos;
                while let Some(&b) = self.bytes().get(self.pos) {
                    if b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E') {
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
                (self.pos > start).then(|| Json::Num(self.text[start..self.pos].to_string()))
            }
        }
    }

    /// Reads the comma-separated items of an object or array, each with
    /// `item`, from its opening bracket through `close`.
    fn items(&mut self, close: u8, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.pos += 1;
        if self.peek()? == close {
            self.pos += 1;
            return Some(());
        }
        loop {
            item(self)?;
            match self.peek()? {
                b',' => self.pos += 1,
                b if b == close => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn word(&mut self, w: &str, v: Json) -> Option<Json> {
        self.text[self.pos..].starts_with(w).then(|| {
            self.pos += w.len();
            v
        })
    }
}

/// How to lay out written JSON.
#[derive(Debug, Clone)]
pub struct Layout {
    /// One level of indentation; `None` writes on one line.
    pub unit: Option<String>,
    /// Whitespace before the value's own lines (its nesting).
    pub base: String,
    /// Separator after a key (`": "` or `":"`) on one line, and between items.
    pub colon: &'static str,
    pub comma: &'static str,
}

/// Writes `v` as Python's `json.dumps(indent=…, ensure_ascii=False)` does.
pub fn write(v: &Json, layout: &Layout, depth: usize, out: &mut String) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Num(n) => out.push_str(n),
        Json::Str(s) => out.push_str(&serde_json::to_string(s).expect("strings serialise")),
        Json::Arr(items) if items.is_empty() => out.push_str("[]"),
        Json::Obj(items) if items.is_empty() => out.push_str("{}"),
        Json::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                sep(layout, depth + 1, i, out);
                write(item, layout, depth + 1, out);
            }
            close(layout, depth, out);
            out.push(']');
        }
        Json::Obj(items) => {
            out.push('{');
            for (i, (k, item)) in items.iter().enumerate() {
                sep(layout, depth + 1, i, out);
                out.push_str(&serde_json::to_string(k).expect("strings serialise"));
                out.push_str(if layout.unit.is_some() {
                    ": "
                } else {
                    layout.colon
                });
                write(item, layout, depth + 1, out);
            }
            close(layout, depth, out);
            out.push('}');
        }
    }
}

fn sep(layout: &Layout, depth: usize, i: usize, out: &mut String) {
    match &layout.unit {
        Some(unit) => {
            if i > 0 {
                out.push(',');
            }
            out.push('\n');
            out.push_str(&layout.base);
            for _ in 0..depth {
                out.push_str(unit);
            }
        }
        None if i > 0 => out.push_str(layout.comma),
        None => {}
    }
}

fn close(layout: &Layout, depth: usize, out: &mut String) {
    if let Some(unit) = &layout.unit {
        out.push('\n');
        out.push_str(&layout.base);
        for _ in 0..depth {
            out.push_str(unit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_jupyter_layout() {
        let text = "{\n \"b\": [\n  1.50,\n  \"x\\n\"\n ],\n \"a\": {}\n}";
        let v = Reader::new(text).value().unwrap();
        let mut out = String::new();
        let layout = Layout {
            unit: Some(" ".into()),
            base: String::new(),
            colon: ": ",
            comma: ", ",
        };
        write(&v, &layout, 0, &mut out);
        assert_eq!(out, text);
    }
}
