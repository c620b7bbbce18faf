//! A JSON document read as spans, so a settings file can be edited in
//! place: every object member and array element keeps its byte range, and
//! nothing between them (whitespace, comments, key order, number spelling)
//! is ever re-serialised. Gemini CLI's settings are JSON with comments
//! (its loader strips them), so `//` and `/* */` comments and trailing
//! commas are read as whitespace here; the other agents' files are plain
//! JSON, a subset.

/// A value and the bytes it spans (`start..end`).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub start: usize,
    pub end: usize,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Object(Vec<Member>),
    Array(Vec<Node>),
    String(String),
    /// A number, `true`, `false` or `null`: kept as its text.
    Other(String),
}

/// `"key": value`, from the key's opening quote to the value's end.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub key: String,
    pub start: usize,
    pub value: Node,
}

impl Member {
    pub fn end(&self) -> usize {
        self.value.end
    }
}

impl Node {
    pub fn members(&self) -> Option<&[Member]> {
        match &self.value {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn items(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.members()?
            .iter()
            .rev()
            .find(|m| m.key == key)
            .map(|m| &m.value)
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

/// Why a document could not be read, and where (1-based line, column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub column: usize,
    pub cause: String,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.cause
        )
    }
}

/// Reads `text` as one JSON value (comments and trailing commas allowed).
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut p = Parser {
        text: text.as_bytes(),
        at: 0,
        depth: 0,
    };
    p.skip_blank()?;
    let node = p.value()?;
    p.skip_blank()?;
    if p.at != p.text.len() {
        return Err(p.error("unexpected text after the JSON value"));
    }
    Ok(node)
}

/// Deeper nesting than any settings file has: a bound, so a hostile file
/// cannot exhaust the stack.
const MAX_DEPTH: usize = 256;

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, cause: &str) -> SyntaxError {
        let before = &self.text[..self.at.min(self.text.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count()
            + 1;
        SyntaxError {
            line,
            column,
            cause: cause.to_string(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// Whitespace and comments.
    fn skip_blank(&mut self) -> Result<(), SyntaxError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.at += 1,
                Some(b'/') if self.text.get(self.at + 1) == Some(&b'/') => {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.at += 1;
                    }
                }
                Some(b'/') if self.text.get(self.at + 1) == Some(&b'*') => {
                    let from = self.at;
                    self.at += 2;
                    loop {
                        match self.peek() {
                            None => {
                                self.at = from;
                                return Err(self.error("a /* comment is never closed"));
                            }
                            Some(b'*') if self.text.get(self.at + 1) == Some(&b'/') => {
                                self.at += 2;
                                break;
                            }
                            Some(_) => self.at += 1,
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self) -> Result<Node, SyntaxError> {
        let start = self.at;
        let value = match self.peek() {
            Some(b'{') => self.nested(Self::object)?,
            Some(b'[') => self.nested(Self::array)?,
            Some(b'"') => Value::String(self.string()?),
            Some(b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => Value::Other(self.scalar()?),
            Some(_) => return Err(self.error("expected a JSON value")),
            None => return Err(self.error("the file ends where a JSON value was expected")),
        };
        Ok(Node {
            start,
            end: self.at,
            value,
        })
    }

    fn nested(
        &mut self,
        read: fn(&mut Self) -> Result<Value, SyntaxError>,
    ) -> Result<Value, SyntaxError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        let value = read(self);
        self.depth -= 1;
        value
    }

    fn object(&mut self) -> Result<Value, SyntaxError> {
        self.at += 1;
        let mut members = Vec::new();
        loop {
            self.skip_blank()?;
            match self.peek() {
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Value::Object(members));
                }
                Some(b'"') => {}
                _ => return Err(self.error("expected a \"key\" or '}' in an object")),
            }
            let start = self.at;
            let key = self.string()?;
            self.skip_blank()?;
            if self.peek() != Some(b':') {
                return Err(self.error("expected ':' after an object key"));
            }
            self.at += 1;
            self.skip_blank()?;
            let value = self.value()?;
            members.push(Member { key, start, value });
            self.skip_blank()?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {}
                _ => return Err(self.error("expected ',' or '}' after an object member")),
            }
        }
    }

    fn array(&mut self) -> Result<Value, SyntaxError> {
        self.at += 1;
        let mut items = Vec::new();
        loop {
            self.skip_blank()?;
            if self.peek() == Some(b']') {
                self.at += 1;
                return Ok(Value::Array(items));
            }
            items.push(self.value()?);
            self.skip_blank()?;
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {}
                _ => return Err(self.error("expected ',' or ']' after an array element")),
            }
        }
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let from = self.at;
        self.at += 1;
        loop {
            match self.peek() {
                None => {
                    self.at = from;
                    return Err(self.error("a string is never closed"));
                }
                Some(b'"') => break,
                Some(b'\\') => self.at += 2,
                Some(_) => self.at += 1,
            }
        }
        self.at += 1;
        let raw = std::str::from_utf8(&self.text[from..self.at.min(self.text.len())])
            .map_err(|_| self.error("a string is not UTF-8"))?;
        serde_json::from_str::<String>(raw).map_err(|e| {
            self.error(&format!(
                "bad string: {}",
                e.to_string().split(" at line").next().unwrap_or_default()
            ))
        })
    }

    fn scalar(&mut self) -> Result<String, SyntaxError> {
        let from = self.at;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.'))
        {
            self.at += 1;
        }
        let text = String::from_utf8_lossy(&self.text[from..self.at]).into_owned();
        if serde_json::from_str::<serde_json::Value>(&text).is_err() {
            self.at = from;
            return Err(self.error(&format!("'{text}' is not a JSON value")));
        }
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_cover_members_and_items_exactly() {
        let text = "{\n  \"a\": [1, {\"b\": \"x\\\"y\"}],\n  // note\n  \"c\": true,\n}\n";
        let doc = parse(text).unwrap();
        let a = &doc.members().unwrap()[0];
        assert_eq!(&text[a.start..a.end()], "\"a\": [1, {\"b\": \"x\\\"y\"}]");
        let items = a.value.items().unwrap();
        assert_eq!(&text[items[1].start..items[1].end], "{\"b\": \"x\\\"y\"}");
        assert_eq!(items[1].get("b").unwrap().as_str(), Some("x\"y"));
        assert_eq!(doc.get("c").unwrap().value, Value::Other("true".into()));
    }

    #[test]
    fn errors_name_the_line_and_column() {
        let e = parse("{\n  \"a\": 1\n  \"b\": 2\n}").unwrap_err();
        assert_eq!((e.line, e.column), (3, 3), "{e}");
        assert!(parse("{\"a\": tru}").is_err());
        assert!(parse("[1] 2").is_err());
        assert!(parse("/* open").is_err());
        assert!(parse(&"[".repeat(10_000)).is_err());
    }
}
