//! Pure parsing of git's configuration syntax: config files (sections,
//! subsections, quoting, escapes, continuation lines, comments) and the
//! `git -c` environment (`GIT_CONFIG_PARAMETERS`). No I/O: the loader in
//! `mod.rs` feeds bytes in and follows includes.

/// One `key = value` line of a config file, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawEntry {
    /// Canonical key: section and name lowercased, subsection kept as written.
    pub key: String,
    /// `None` for a bare `key` line (git's implicit `true`).
    pub value: Option<String>,
    /// 1-based line the entry starts on.
    pub line: usize,
}

/// Where a config file stops making sense, as git reports it ("bad config
/// line N").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub line: usize,
    pub cause: &'static str,
}

/// Parses a whole config file.
pub fn parse_file(text: &str) -> Result<Vec<RawEntry>, SyntaxError> {
    let mut out = Vec::new();
    parse_into(text, &mut out)?;
    Ok(out)
}

/// The entries before the first syntax error, and that error: what git's
/// config callbacks see of a broken file (its `fsck` checks a
/// `.gitmodules` entry by entry until the parse fails).
pub fn parse_prefix(text: &str) -> (Vec<RawEntry>, Option<SyntaxError>) {
    let mut out = Vec::new();
    let error = parse_into(text, &mut out).err();
    (out, error)
}

fn parse_into(text: &str, out: &mut Vec<RawEntry>) -> Result<(), SyntaxError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut p = Parser {
        chars: text.chars().collect(),
        pos: 0,
        line: 1,
    };
    let mut section: Option<String> = None;
    loop {
        p.skip_blank();
        let Some(c) = p.peek() else { break };
        match c {
            '\n' => p.bump(),
            '#' | ';' => p.skip_line(),
            '[' => {
                p.bump();
                section = Some(p.section_header()?);
            }
            c if c.is_ascii_alphabetic() => {
                let line = p.line;
                let Some(sec) = &section else {
                    return Err(p.error("a key outside any [section]"));
                };
                let name = p.key_name();
                let value = p.value_part()?;
                out.push(RawEntry {
                    key: format!("{sec}.{}", name.to_ascii_lowercase()),
                    value,
                    line,
                });
            }
            _ => return Err(p.error("a line that is neither a [section] nor a key")),
        }
    }
    Ok(())
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    line: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn bump(&mut self) {
        if self.peek() == Some('\n') {
            self.line += 1;
        }
        self.pos += 1;
    }

    fn error(&self, cause: &'static str) -> SyntaxError {
        SyntaxError {
            line: self.line,
            cause,
        }
    }

    /// Spaces and tabs (and `\r`), not newlines.
    fn skip_blank(&mut self) {
        while self.peek().is_some_and(|c| c != '\n' && c.is_whitespace()) {
            self.bump();
        }
    }

    fn skip_line(&mut self) {
        while let Some(c) = self.peek() {
            self.bump();
            if c == '\n' {
                break;
            }
        }
    }

    /// `[section]`, `[section "sub"]` or the old `[section.sub]`; the
    /// opening bracket is consumed. Returns the canonical prefix.
    fn section_header(&mut self) -> Result<String, SyntaxError> {
        let mut name = String::new();
        loop {
            match self.peek() {
                Some(']') => {
                    self.bump();
                    if name.is_empty() {
                        return Err(self.error("an empty section name"));
                    }
                    // `[a.B]` is the deprecated spelling of `[a "b"]`: git
                    // lowercases the whole thing.
                    return Ok(name.to_ascii_lowercase());
                }
                Some(c) if c.is_ascii_alphanumeric() || c == '-' || c == '.' => {
                    name.push(c);
                    self.bump();
                }
                Some(c) if c == ' ' || c == '\t' => {
                    self.skip_blank();
                    if self.peek() != Some('"') {
                        return Err(self.error("a section header with a stray space"));
                    }
                    self.bump();
                    let sub = self.subsection()?;
                    if self.peek() != Some(']') {
                        return Err(self.error("a section header not closed by ]"));
                    }
                    self.bump();
                    return Ok(format!("{}.{sub}", name.to_ascii_lowercase()));
                }
                _ => return Err(self.error("a section header not closed by ]")),
            }
        }
    }

    /// The quoted subsection after the opening quote; `\x` is `x`.
    fn subsection(&mut self) -> Result<String, SyntaxError> {
        let mut sub = String::new();
        loop {
            match self.peek() {
                None | Some('\n') => return Err(self.error("an unterminated subsection name")),
                Some('"') => {
                    self.bump();
                    return Ok(sub);
                }
                Some('\\') => {
                    self.bump();
                    match self.peek() {
                        None | Some('\n') => {
                            return Err(self.error("an unterminated subsection name"));
                        }
                        Some(c) => {
                            sub.push(c);
                            self.bump();
                        }
                    }
                }
                Some(c) => {
                    sub.push(c);
                    self.bump();
                }
            }
        }
    }

    fn key_name(&mut self) -> String {
        let mut name = String::new();
        while let Some(c) = self
            .peek()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        {
            name.push(c);
            self.bump();
        }
        name
    }

    /// After the key: end of line (implicit true) or `= value`.
    fn value_part(&mut self) -> Result<Option<String>, SyntaxError> {
        self.skip_blank();
        match self.peek() {
            None => Ok(None),
            Some('\n') => {
                self.bump();
                Ok(None)
            }
            Some('#' | ';') => {
                self.skip_line();
                Ok(None)
            }
            Some('=') => {
                self.bump();
                self.value().map(Some)
            }
            Some(_) => Err(self.error("a key name with invalid characters")),
        }
    }

    /// git's `parse_value`: quotes toggle, whitespace outside quotes is
    /// squeezed to the spaces between words, `\` escapes and continues.
    fn value(&mut self) -> Result<String, SyntaxError> {
        let mut value = String::new();
        let mut quoted = false;
        let mut spaces = 0usize;
        loop {
            let Some(c) = self.peek() else {
                if quoted {
                    return Err(self.error("an unterminated quote in a value"));
                }
                return Ok(value);
            };
            self.bump();
            match c {
                '\n' => {
                    if quoted {
                        return Err(self.error("an unterminated quote in a value"));
                    }
                    return Ok(value);
                }
                '#' | ';' if !quoted => {
                    self.skip_line();
                    return Ok(value);
                }
                c if c.is_whitespace() && !quoted => {
                    if !value.is_empty() {
                        spaces += 1;
                    }
                }
                _ => {
                    for _ in 0..spaces {
                        value.push(' ');
                    }
                    spaces = 0;
                    match c {
                        '"' => quoted = !quoted,
                        '\\' => {
                            let Some(next) = self.peek() else {
                                return Err(self.error("a backslash at the end of the file"));
                            };
                            self.bump();
                            match next {
                                '\n' => {}
                                'n' => value.push('\n'),
                                't' => value.push('\t'),
                                'b' => value.push('\u{8}'),
                                '\\' | '"' => value.push(next),
                                _ => return Err(self.error("an invalid escape in a value")),
                            }
                        }
                        c => value.push(c),
                    }
                }
            }
        }
    }
}

/// Canonical form of a key as given on the command line (`Section.Sub.Name`):
/// section and name lowercased, the subsection kept. `None` when it has no
/// section or no name, which git rejects.
pub fn canonical_key(key: &str) -> Option<String> {
    let (section, rest) = key.split_once('.')?;
    let (sub, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name),
        None => (None, rest),
    };
    if section.is_empty() || name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic())
    {
        return None;
    }
    let mut out = section.to_ascii_lowercase();
    if let Some(sub) = sub {
        out.push('.');
        out.push_str(sub);
    }
    out.push('.');
    out.push_str(&name.to_ascii_lowercase());
    Some(out)
}

/// Parses git's `GIT_CONFIG_PARAMETERS` (what `git -c k=v` exports): sq-quoted
/// words, each `'k=v'`, `'k'='v'` or `'k'` (no value: implicit true),
/// separated by spaces; `'\''` is an embedded quote. `None` on malformed
/// input, which git rejects too.
pub fn parse_parameters(params: &str) -> Option<Vec<(String, Option<String>)>> {
    type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;
    /// One sq-quoted word (git's `sq_dequote_step`), opening quote consumed.
    fn word(chars: &mut Chars<'_>) -> Option<String> {
        let mut s = String::new();
        loop {
            match chars.next()? {
                '\'' if chars.peek() == Some(&'\\') => {
                    // `'\''`: close, escaped quote, reopen.
                    chars.next();
                    s.push(chars.next()?);
                    if chars.next()? != '\'' {
                        return None;
                    }
                }
                '\'' => return Some(s),
                c => s.push(c),
            }
        }
    }
    let mut out = Vec::new();
    let mut chars = params.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.next() {
            None => return Some(out),
            Some('\'') => {}
            Some(_) => return None,
        }
        let first = word(&mut chars)?;
        let item = if chars.peek() == Some(&'=') {
            // The newer `'key'='value'` form (git 2.31+).
            chars.next();
            let value = match chars.peek() {
                Some('\'') => {
                    chars.next();
                    Some(word(&mut chars)?)
                }
                _ => Some(String::new()),
            };
            (first, value)
        } else {
            match first.split_once('=') {
                Some((k, v)) => (k.to_string(), Some(v.to_string())),
                None => (first, None),
            }
        };
        out.push(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(text: &str) -> Vec<(String, Option<String>)> {
        parse_file(text)
            .unwrap()
            .into_iter()
            .map(|e| (e.key, e.value))
            .collect()
    }

    /// `(key, value)` pairs in file order.
    type Entries<'a> = &'a [(&'a str, Option<&'a str>)];

    /// `text` parses to `expected`, `(key, value)` in file order.
    fn parses_to(text: &str, expected: Entries<'_>) {
        let expected: Vec<(String, Option<String>)> = expected
            .iter()
            .map(|(k, v)| (k.to_string(), v.map(str::to_string)))
            .collect();
        assert_eq!(entries(text), expected, "{text:?}");
    }

    /// Sections, subsections and old-style headers; quoting, escapes,
    /// comments and continuations; CRLF files read like LF files.
    #[test]
    fn entries_are_read_as_git_reads_them() {
        let cases: &[(&str, Entries<'_>)] = &[
            (
                "[Evolv]\n\tValidate = cargo test\n[remote \"Origin\"]\nurl=x\n[Branch.Main]\nremote = o\n",
                &[
                    ("evolv.validate", Some("cargo test")),
                    ("remote.Origin.url", Some("x")),
                    ("branch.main.remote", Some("o")),
                ],
            ),
            (
                "[a]\nb = \"  x ; y \" # c\nc = one   two\t three  \nd = a\\\n  b\ne = \"q\\\"\\\\\\t\"\nf\ng = ; comment\n",
                &[
                    ("a.b", Some("  x ; y ")),
                    ("a.c", Some("one   two  three")),
                    ("a.d", Some("a  b")),
                    ("a.e", Some("q\"\\\t")),
                    ("a.f", None),
                    ("a.g", Some("")),
                ],
            ),
            ("[a]\r\n\tb = c\r\n", &[("a.b", Some("c"))]),
        ];
        for (text, expected) in cases {
            parses_to(text, expected);
        }
    }

    #[test]
    fn bad_lines_are_reported_with_their_number() {
        let err = parse_file("[a]\nb = c\n  = d\n").unwrap_err();
        assert_eq!(err.line, 3);
        assert!(parse_file("b = c\n").is_err());
        assert!(parse_file("[a\nb = c\n").is_err());
        assert!(parse_file("[a]\nb = \"open\n").is_err());
        assert!(parse_file("[a]\nb = \\q\n").is_err());
    }

    #[test]
    fn command_line_keys_are_canonical() {
        assert_eq!(
            canonical_key("Evolv.Validate").as_deref(),
            Some("evolv.validate")
        );
        assert_eq!(
            canonical_key("Remote.Or.ig.URL").as_deref(),
            Some("remote.Or.ig.url")
        );
        assert_eq!(canonical_key("novalue"), None);
        assert_eq!(canonical_key("a."), None);
    }

    #[test]
    fn git_config_parameters_both_forms_and_embedded_quotes() {
        let got =
            parse_parameters("'core.commentchar'=';' 'evolv.commit.types=feat,fix' 'x.y'").unwrap();
        assert_eq!(
            got,
            [
                ("core.commentchar".into(), Some(";".into())),
                ("evolv.commit.types".into(), Some("feat,fix".into())),
                ("x.y".into(), None),
            ]
        );
        let got = parse_parameters("'user.name'='O'\\''Brien'").unwrap();
        assert_eq!(got, [("user.name".into(), Some("O'Brien".into()))]);
        assert_eq!(parse_parameters("").unwrap(), []);
        assert!(parse_parameters("'unterminated").is_none());
    }
}
