//! Names as git C-quotes them (`quote_c_style`): `"a/t\tab\303\251"`, with
//! `\a \b \t \n \v \f \r \" \\` and three-digit octal escapes. Patches
//! quote such names, and so may `objects/info/alternates`.

/// The quoted string at the start of `text` (its opening quote first):
/// the bytes it stands for, and what follows its closing quote. `None`
/// when it is not a well-formed quoted string.
pub fn unquote(text: &[u8]) -> Option<(Vec<u8>, &[u8])> {
    let mut rest = text.strip_prefix(b"\"")?;
    let mut out = Vec::with_capacity(rest.len());
    loop {
        let (&b, tail) = rest.split_first()?;
        rest = tail;
        match b {
            b'"' => return Some((out, rest)),
            b'\\' => {
                let (&e, tail) = rest.split_first()?;
                rest = tail;
                out.push(match e {
                    b'a' => 7,
                    b'b' => 8,
                    b't' => b'\t',
                    b'n' => b'\n',
                    b'v' => 11,
                    b'f' => 12,
                    b'r' => b'\r',
                    b'"' | b'\\' => e,
                    b'0'..=b'3' => {
                        let digits = rest.get(..2)?;
                        if !digits.iter().all(|d| (b'0'..=b'7').contains(d)) {
                            return None;
                        }
                        rest = &rest[2..];
                        ((e - b'0') << 6) | ((digits[0] - b'0') << 3) | (digits[1] - b'0')
                    }
                    _ => return None,
                });
            }
            b => out.push(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::unquote;

    #[test]
    fn escapes_and_octal_bytes_unquote_and_the_rest_is_kept() {
        let (name, rest) = unquote(b"\"a/t\\tab\\303\\251 \\\"q\\\"\" tail").unwrap();
        assert_eq!(name, "a/t\tab\u{e9} \"q\"".as_bytes());
        assert_eq!(rest, b" tail");
        assert_eq!(unquote(b"\"open"), None);
        assert_eq!(unquote(b"\"bad \\x\""), None);
        assert_eq!(unquote(b"\"\\48\""), None, "octal digits only");
        assert_eq!(unquote(b"plain"), None);
    }
}
