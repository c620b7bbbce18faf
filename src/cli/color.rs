//! Colours as git decides them: whether to colour (`color.evolv`,
//! `color.diff`, `color.ui`, `--color`, `NO_COLOR`), git's colour syntax
//! (`bold red`, `#ff0000 ul`, `brightgreen 17`), and the diff slots
//! (`color.diff.old`, `new`, `frag`, `meta`, `func`, `context`,
//! `whitespace`) with git's defaults, so `git evolv show` looks like
//! `git show` on the same machine. Pure: config values come in as strings.

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// git's reset sequence.
pub const RESET: &str = "\x1b[m";

/// A colour setting's value (`git_config_colorbool`): `never`, `always`,
/// `auto`; a boolean true (or a bare key) means `auto` since git 1.8.4.
pub fn parse_colorbool(value: Option<&str>) -> Option<ColorChoice> {
    let Some(v) = value else {
        return Some(ColorChoice::Auto);
    };
    match v.to_ascii_lowercase().as_str() {
        "never" => Some(ColorChoice::Never),
        "always" => Some(ColorChoice::Always),
        "auto" => Some(ColorChoice::Auto),
        "true" | "yes" | "on" | "1" | "" => Some(ColorChoice::Auto),
        "false" | "no" | "off" | "0" => Some(ColorChoice::Never),
        _ => v.parse::<i64>().ok().map(|n| {
            if n == 0 {
                ColorChoice::Never
            } else {
                ColorChoice::Auto
            }
        }),
    }
}

/// What decides whether to colour, gathered by the caller.
#[derive(Debug, Clone, Default)]
pub struct ColorInputs {
    /// `--color`, when given.
    pub flag: Option<ColorChoice>,
    /// The most specific colour key that is set (`color.evolv`, then
    /// `color.diff` for diff output, then `color.ui`), already parsed.
    pub config: Option<ColorChoice>,
    /// `NO_COLOR` is set and not empty.
    pub no_color: bool,
    /// stdout is a terminal (checked before any pager took it over).
    pub stdout_is_tty: bool,
    /// git (or we) send stdout to a pager and `color.pager` is not false.
    pub pager_colors: bool,
    /// `TERM=dumb`.
    pub term_dumb: bool,
    /// `--json`: never coloured.
    pub json: bool,
}

/// The decision. `--color` beats config, as a flag beats config in git;
/// `NO_COLOR` (no-color.org) only turns off colours nobody asked for, so an
/// explicit `always` in config or on the command line still colours; `auto`
/// colours a terminal (or git's pager) unless `TERM=dumb`, as git does.
pub fn want_color(i: &ColorInputs) -> bool {
    if i.json {
        return false;
    }
    let explicit = i.flag.filter(|c| *c != ColorChoice::Auto);
    match explicit.or(i.config).unwrap_or(ColorChoice::Auto) {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            // An explicit `--color=auto` still yields to NO_COLOR.
            !i.no_color && (i.stdout_is_tty || i.pager_colors) && !i.term_dumb
        }
    }
}

/// Parses a git colour value (`color.c`'s `color_parse`) into its escape
/// sequence; `None` if git would reject it. An empty value or `normal`
/// alone gives an empty sequence (no colour).
pub fn parse_color(value: &str) -> Option<String> {
    let mut attrs: Vec<u32> = Vec::new();
    let mut fg: Option<String> = None;
    let mut bg: Option<String> = None;
    let mut colours_seen = 0;
    let mut reset = false;
    for word in value.split_ascii_whitespace() {
        let w = word.to_ascii_lowercase();
        if w == "reset" {
            reset = true;
            continue;
        }
        if let Some(code) = parse_colour_word(&w) {
            match colours_seen {
                0 => fg = code.map(|c| c.fg()),
                1 => bg = code.map(|c| c.bg()),
                _ => return None,
            }
            colours_seen += 1;
            continue;
        }
        attrs.push(parse_attr(&w)?);
    }
    // git keeps attributes in a bit set: set ones first, then the
    // negations, each in code order, each once.
    attrs.sort_by_key(|a| (*a >= 20, *a));
    attrs.dedup();
    let mut parts: Vec<String> = Vec::new();
    if reset {
        // git's `reset` is an empty parameter in front.
        parts.push(String::new());
    }
    parts.extend(attrs.iter().map(u32::to_string));
    parts.extend(fg);
    parts.extend(bg);
    if parts.is_empty() {
        return Some(String::new());
    }
    if parts == [""] {
        return Some(RESET.into());
    }
    Some(format!("\x1b[{}m", parts.join(";")))
}

/// A colour: one of git's eight (optionally bright), 256 or RGB.
#[derive(Debug, Clone, Copy)]
enum Colour {
    Ansi(u8),
    Bright(u8),
    Index(u8),
    Rgb(u8, u8, u8),
    Default,
}

impl Colour {
    fn fg(self) -> String {
        self.sgr(30)
    }

    fn bg(self) -> String {
        self.sgr(40)
    }

    /// The SGR parameter for this colour where `base` is black's code
    /// (30 for the foreground, 40 for the background): the bright colours
    /// are 60 above, the 256-colour and true-colour forms `base + 8`,
    /// the default colour `base + 9`.
    fn sgr(self, base: u32) -> String {
        match self {
            Colour::Ansi(n) => (base + u32::from(n)).to_string(),
            Colour::Bright(n) => (base + 60 + u32::from(n)).to_string(),
            Colour::Index(n) => format!("{};5;{n}", base + 8),
            Colour::Rgb(r, g, b) => format!("{};2;{r};{g};{b}", base + 8),
            Colour::Default => (base + 9).to_string(),
        }
    }
}

const NAMES: [&str; 8] = [
    "black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
];

/// `Some(None)` is `normal` (no colour, but it takes the colour's place).
fn parse_colour_word(w: &str) -> Option<Option<Colour>> {
    if w == "normal" {
        return Some(None);
    }
    if w == "default" {
        return Some(Some(Colour::Default));
    }
    if let Some(i) = NAMES.iter().position(|n| *n == w) {
        return Some(Some(Colour::Ansi(i as u8)));
    }
    if let Some(rest) = w.strip_prefix("bright")
        && let Some(i) = NAMES.iter().position(|n| *n == rest)
    {
        return Some(Some(Colour::Bright(i as u8)));
    }
    if let Some(hex) = w.strip_prefix('#') {
        let hex = match hex.len() {
            6 => hex.to_string(),
            3 => hex.chars().flat_map(|c| [c, c]).collect(),
            _ => return None,
        };
        let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
        return Some(Some(Colour::Rgb(byte(0)?, byte(2)?, byte(4)?)));
    }
    if let Ok(n) = w.parse::<i32>() {
        return match n {
            -1 => Some(None),
            0..=255 => Some(Some(Colour::Index(n as u8))),
            _ => None,
        };
    }
    None
}

/// git's attribute words, and their `no`/`no-` negations.
fn parse_attr(w: &str) -> Option<u32> {
    let (negate, name) = match w.strip_prefix("no") {
        Some(rest) => (true, rest.strip_prefix('-').unwrap_or(rest)),
        None => (false, w),
    };
    let code = match name {
        "bold" => 1,
        "dim" => 2,
        "italic" => 3,
        "ul" => 4,
        "blink" => 5,
        "reverse" => 7,
        "strike" => 9,
        _ => return None,
    };
    Some(if negate {
        // git: nobold and nodim share 22; the others are 20 + code.
        if code == 1 { 22 } else { 20 + code }
    } else {
        code
    })
}

/// The diff colour slots git uses, with git's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffPalette {
    pub context: String,
    pub meta: String,
    pub frag: String,
    pub func: String,
    pub old: String,
    pub new: String,
    pub whitespace: String,
    /// The `commit <id>` line of `git show`; here `patch <id>`.
    pub commit: String,
}

/// The slot names, as in `color.diff.<slot>`.
pub const SLOTS: [&str; 8] = [
    "context",
    "meta",
    "frag",
    "func",
    "old",
    "new",
    "whitespace",
    "commit",
];

impl Default for DiffPalette {
    fn default() -> Self {
        DiffPalette {
            context: String::new(),
            meta: "\x1b[1m".into(),
            frag: "\x1b[36m".into(),
            func: String::new(),
            old: "\x1b[31m".into(),
            new: "\x1b[32m".into(),
            whitespace: "\x1b[41m".into(),
            commit: "\x1b[33m".into(),
        }
    }
}

impl DiffPalette {
    /// git's defaults overridden by `color.diff.<slot>` (`lookup` gives a
    /// key's value). An unparsable value is an error naming the key.
    pub fn from_config(
        lookup: impl Fn(&str) -> Option<String>,
    ) -> std::result::Result<Self, (String, String)> {
        let mut p = DiffPalette::default();
        for slot in SLOTS {
            // `plain` is git's old name for `context`.
            let keys: &[&str] = if slot == "context" {
                &["color.diff.plain", "color.diff.context"]
            } else {
                &[]
            };
            let key = format!("color.diff.{slot}");
            let value = lookup(&key).or_else(|| keys.iter().find_map(|k| lookup(k)));
            if let Some(v) = value {
                let seq = parse_color(&v).ok_or_else(|| (key.clone(), v.clone()))?;
                *p.slot_mut(slot) = seq;
            }
        }
        Ok(p)
    }

    fn slot_mut(&mut self, slot: &str) -> &mut String {
        match slot {
            "context" => &mut self.context,
            "meta" => &mut self.meta,
            "frag" => &mut self.frag,
            "func" => &mut self.func,
            "old" => &mut self.old,
            "new" => &mut self.new,
            "commit" => &mut self.commit,
            _ => &mut self.whitespace,
        }
    }

    /// Colours a unified diff byte for byte as `git show` does: header
    /// lines in `meta`, `@@ … @@` in `frag` and the function context after
    /// it in `func`, removed lines in `old`, added lines in `new` with
    /// git's default whitespace checks (`blank-at-eol`, `space-before-tab`)
    /// in `whitespace`, and context in `context`. Bytes that are not UTF-8
    /// pass through.
    pub fn paint(&self, patch: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(patch.len() + patch.len() / 4);
        let mut in_header = false;
        for line in patch.split_inclusive(|&b| b == b'\n') {
            let (body, nl) = match line.strip_suffix(b"\n") {
                Some(b) => (b, &b"\n"[..]),
                None => (line, &b""[..]),
            };
            if body.starts_with(b"diff --git ") {
                in_header = true;
            } else if body.starts_with(b"@@") {
                in_header = false;
            }
            if in_header {
                if body.starts_with(b"Binary files ") {
                    out.extend_from_slice(body);
                } else {
                    wrap(&mut out, &self.meta, body);
                }
            } else if body.starts_with(b"@@") {
                self.paint_frag(&mut out, body);
            } else if let Some(rest) = body.strip_prefix(b"+") {
                wrap(&mut out, &self.new, b"+");
                self.paint_added(&mut out, rest);
            } else if body.starts_with(b"-") {
                wrap(&mut out, &self.old, body);
            } else {
                wrap(&mut out, &self.context, body);
            }
            out.extend_from_slice(nl);
        }
        out
    }

    /// An added line's text after the `+`, as git's `ws_check_emit` writes
    /// it: leading tabs plain, spaces before a tab and trailing blanks in
    /// `whitespace`, the rest in `new`.
    fn paint_added(&self, out: &mut Vec<u8>, rest: &[u8]) {
        let trailing = rest.len()
            - rest
                .iter()
                .rev()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        let mut written = 0;
        for (i, &b) in rest[..trailing].iter().enumerate() {
            if b == b' ' {
                continue;
            }
            if b != b'\t' {
                break;
            }
            if written < i {
                wrap(out, &self.whitespace, &rest[written..i]);
            }
            out.push(b'\t');
            written = i + 1;
        }
        if written < trailing {
            wrap(out, &self.new, &rest[written..trailing]);
        }
        if trailing < rest.len() {
            wrap(out, &self.whitespace, &rest[trailing..]);
        }
    }

    /// `@@ -a,b +c,d @@ func`: the range in `frag`, the space in
    /// `context`, the function name in `func`.
    fn paint_frag(&self, out: &mut Vec<u8>, body: &[u8]) {
        let end = body
            .get(2..)
            .and_then(|b| b.windows(2).position(|w| w == b"@@"))
            .map_or(body.len(), |i| i + 4);
        wrap(out, &self.frag, &body[..end]);
        let rest = &body[end..];
        if let Some(func) = rest.strip_prefix(b" ") {
            wrap(out, &self.context, b" ");
            wrap(out, &self.func, func);
        } else {
            out.extend_from_slice(rest);
        }
    }
}

/// `colour text reset` as a string (for one-line headers).
pub fn paint_str(colour: &str, text: &str) -> String {
    format!("{colour}{text}{RESET}")
}

/// `colour text reset`, as git writes every coloured piece (the reset
/// even when the slot's colour is empty).
fn wrap(out: &mut Vec<u8>, colour: &str, text: &[u8]) {
    out.extend_from_slice(colour.as_bytes());
    out.extend_from_slice(text);
    out.extend_from_slice(RESET.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_values_parse_as_git_parses_them() {
        // Expected sequences from `git config --get-color '' '<value>'`.
        let cases = [
            ("red", "\x1b[31m"),
            ("bold", "\x1b[1m"),
            ("bold red", "\x1b[1;31m"),
            ("red bold", "\x1b[1;31m"),
            ("normal red", "\x1b[41m"),
            ("brightgreen", "\x1b[92m"),
            ("yellow black ul", "\x1b[4;33;40m"),
            ("#ff0000", "\x1b[38;2;255;0;0m"),
            ("17 reverse", "\x1b[7;38;5;17m"),
            ("nobold", "\x1b[22m"),
            ("bold nobold", "\x1b[1;22m"),
            ("reset", "\x1b[m"),
            ("reset red", "\x1b[;31m"),
            ("default", "\x1b[39m"),
            ("#f00", "\x1b[38;2;255;0;0m"),
            ("no-ul", "\x1b[24m"),
            ("normal", ""),
            ("", ""),
        ];
        for (value, want) in cases {
            assert_eq!(parse_color(value).as_deref(), Some(want), "{value:?}");
        }
        for bad in ["reddish", "red green blue", "#12", "300", "underline"] {
            assert_eq!(parse_color(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn colorbool_values_follow_git() {
        assert_eq!(parse_colorbool(Some("true")), Some(ColorChoice::Auto));
        assert_eq!(parse_colorbool(None), Some(ColorChoice::Auto));
        assert_eq!(parse_colorbool(Some("ALWAYS")), Some(ColorChoice::Always));
        assert_eq!(parse_colorbool(Some("off")), Some(ColorChoice::Never));
        assert_eq!(parse_colorbool(Some("sometimes")), None);
    }

    #[test]
    fn the_decision_order_is_flag_config_no_color_then_terminal() {
        let tty = ColorInputs {
            stdout_is_tty: true,
            ..Default::default()
        };
        assert!(want_color(&tty));
        let no_color = ColorInputs {
            no_color: true,
            ..tty.clone()
        };
        assert!(!want_color(&no_color));
        let config_always = ColorInputs {
            config: Some(ColorChoice::Always),
            ..no_color.clone()
        };
        assert!(want_color(&config_always), "config beats NO_COLOR");
        let flag_never = ColorInputs {
            flag: Some(ColorChoice::Never),
            ..config_always.clone()
        };
        assert!(!want_color(&flag_never), "--color beats config");
        let json = ColorInputs {
            json: true,
            flag: Some(ColorChoice::Always),
            ..Default::default()
        };
        assert!(!want_color(&json));
        let dumb = ColorInputs {
            term_dumb: true,
            ..tty
        };
        assert!(!want_color(&dumb));
    }

    #[test]
    fn a_diff_is_painted_byte_for_byte_as_git_paints_it() {
        // Expected output from git 2.47 `git diff --color=always`.
        let patch = b"diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@ int main() {\n ctx\n-old\n+new  \n+\tfoo\n+ \tx\n+\n\\ No newline at end of file\n";
        let out = String::from_utf8(DiffPalette::default().paint(patch)).unwrap();
        let want = "\x1b[1mdiff --git a/f b/f\x1b[m\n\x1b[1mindex 1..2 100644\x1b[m\n\x1b[1m--- a/f\x1b[m\n\x1b[1m+++ b/f\x1b[m\n\x1b[36m@@ -1,3 +1,3 @@\x1b[m \x1b[mint main() {\x1b[m\n ctx\x1b[m\n\x1b[31m-old\x1b[m\n\x1b[32m+\x1b[m\x1b[32mnew\x1b[m\x1b[41m  \x1b[m\n\x1b[32m+\x1b[m\t\x1b[32mfoo\x1b[m\n\x1b[32m+\x1b[m\x1b[41m \x1b[m\t\x1b[32mx\x1b[m\n\x1b[32m+\x1b[m\n\\ No newline at end of file\x1b[m\n";
        assert_eq!(out, want);
    }

    #[test]
    fn configured_slots_replace_the_defaults() {
        let p = DiffPalette::from_config(|k| match k {
            "color.diff.old" => Some("bold magenta".into()),
            "color.diff.plain" => Some("blue".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(p.old, "\x1b[1;35m");
        assert_eq!(p.context, "\x1b[34m");
        assert_eq!(p.new, "\x1b[32m");
        let err = DiffPalette::from_config(|k| (k == "color.diff.new").then(|| "greenish".into()));
        assert_eq!(err, Err(("color.diff.new".into(), "greenish".into())));
    }
}
