//! The proc-receive protocol (githooks(5), git's `run_proc_receive_hook`):
//! git sends `version=1\0<capabilities>` and a flush; the hook answers
//! `version=1` (with `\0push-options` to receive them) and a flush; git
//! sends `<old> <new> <ref>` lines and a flush, then, when both sides asked
//! for them, the push options and a flush; the hook answers one `ok <ref>`
//! or `ng <ref> <reason>` per command, each `ok` optionally followed by
//! `option refname|old-oid|new-oid <value>` lines, then a flush.

use std::io::{Read, Write};

use super::pkt_line::{self, Pkt};
use crate::error::{Error, Result};

/// The most commands one push may carry to the hook.
pub const MAX_COMMANDS: usize = 200;
/// The most push options one push may carry.
pub const MAX_OPTIONS: usize = 32;
/// The longest push option, in bytes.
pub const MAX_OPTION_LEN: usize = 1024;

/// What git offered in its version line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Offer {
    pub push_options: bool,
    pub atomic: bool,
}

/// One ref update git hands to the hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub old: String,
    pub new: String,
    pub refname: String,
}

/// The hook's answer for one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Report {
    /// Done: `refname` is the ref the pusher sees updated (when it is not
    /// the pushed one), from `old` to `new`.
    Ok {
        pushed: String,
        refname: Option<String>,
        old: Option<String>,
        new: Option<String>,
    },
    /// Refused, with a one-line reason.
    Ng { pushed: String, reason: String },
}

fn bad(what: impl Into<String>) -> Error {
    Error::invalid(
        format!("proc-receive: {}", what.into()),
        "only git's receive-pack (2.29 or later) should run the proc-receive hook",
    )
}

fn text(data: Vec<u8>, what: &str) -> Result<String> {
    String::from_utf8(data).map_err(|_| bad(format!("{what} is not UTF-8")))
}

/// Reads git's version line and its flush.
pub fn read_version(r: &mut impl Read) -> Result<Offer> {
    let Pkt::Data(line) = pkt_line::read(r)? else {
        return Err(bad("expected the version line"));
    };
    let (version, caps) = match line.iter().position(|b| *b == 0) {
        Some(i) => (&line[..i], &line[i + 1..]),
        None => (&line[..], &[][..]),
    };
    if version != b"version=1" {
        return Err(bad(format!(
            "protocol {:?} is not supported (only version=1)",
            String::from_utf8_lossy(version)
        )));
    }
    let caps = String::from_utf8_lossy(caps);
    let offer = Offer {
        push_options: caps.split(' ').any(|c| c == "push-options"),
        atomic: caps.split(' ').any(|c| c == "atomic"),
    };
    expect_flush(r, "the version line")?;
    Ok(offer)
}

fn expect_flush(r: &mut impl Read, after: &str) -> Result<()> {
    match pkt_line::read(r)? {
        Pkt::Flush => Ok(()),
        _ => Err(bad(format!("expected a flush after {after}"))),
    }
}

/// Answers version 1, asking for push options when git offered them.
pub fn write_version(w: &mut impl Write, push_options: bool) -> std::io::Result<()> {
    if push_options {
        pkt_line::write(w, b"version=1\0push-options")?;
    } else {
        pkt_line::write(w, b"version=1")?;
    }
    pkt_line::flush(w)
}

fn is_oid(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Reads the commands up to their flush (at most [`MAX_COMMANDS`]).
pub fn read_commands(r: &mut impl Read) -> Result<Vec<Command>> {
    let mut out = Vec::new();
    loop {
        let line = match pkt_line::read(r)? {
            Pkt::Flush => return Ok(out),
            Pkt::Eof => return Err(bad("the stream ended inside the commands")),
            Pkt::Data(d) => text(d, "a command")?,
        };
        if out.len() == MAX_COMMANDS {
            return Err(bad(format!("more than {MAX_COMMANDS} refs in one push")));
        }
        let mut parts = line.splitn(3, ' ');
        let (Some(old), Some(new), Some(refname)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(bad("a command that is not `<old> <new> <ref>`"));
        };
        if !is_oid(old) || !is_oid(new) {
            return Err(bad("a command whose object ids are not hex"));
        }
        out.push(Command {
            old: old.to_ascii_lowercase(),
            new: new.to_ascii_lowercase(),
            refname: refname.to_string(),
        });
    }
}

/// Reads the push options up to their flush, bounded in count and size.
pub fn read_options(r: &mut impl Read) -> Result<Vec<String>> {
    let mut out = Vec::new();
    loop {
        let line = match pkt_line::read(r)? {
            Pkt::Flush => return Ok(out),
            Pkt::Eof => return Err(bad("the stream ended inside the push options")),
            Pkt::Data(d) => d,
        };
        if out.len() == MAX_OPTIONS {
            return Err(bad(format!("more than {MAX_OPTIONS} push options")));
        }
        if line.len() > MAX_OPTION_LEN {
            return Err(bad(format!(
                "a push option of {} bytes (at most {MAX_OPTION_LEN})",
                line.len()
            )));
        }
        out.push(text(line, "a push option")?);
    }
}

/// One line of text fit for a pkt-line and git's one-line reason: no
/// newline or control character, bounded.
pub fn one_line(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(400)
        .collect();
    out.truncate(out.trim_end().len());
    out
}

/// Writes the reports and the closing flush.
pub fn write_reports(w: &mut impl Write, reports: &[Report]) -> std::io::Result<()> {
    for r in reports {
        match r {
            Report::Ok {
                pushed,
                refname,
                old,
                new,
            } => {
                pkt_line::write(w, format!("ok {pushed}").as_bytes())?;
                for (key, value) in [("refname", refname), ("old-oid", old), ("new-oid", new)] {
                    if let Some(v) = value {
                        pkt_line::write(w, format!("option {key} {v}").as_bytes())?;
                    }
                }
            }
            Report::Ng { pushed, reason } => {
                pkt_line::write(w, format!("ng {pushed} {}", one_line(reason)).as_bytes())?;
            }
        }
    }
    pkt_line::flush(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkts(lines: &[&[u8]]) -> Vec<u8> {
        let mut buf = Vec::new();
        for l in lines {
            if l.is_empty() {
                pkt_line::flush(&mut buf).unwrap();
            } else {
                pkt_line::write(&mut buf, l).unwrap();
            }
        }
        buf
    }

    const A: &str = "1111111111111111111111111111111111111111";
    const B: &str = "2222222222222222222222222222222222222222";

    #[test]
    fn reads_a_whole_exchange() {
        let cmd = format!("{A} {B} refs/for/main");
        let input = pkts(&[
            b"version=1\0atomic push-options",
            b"",
            cmd.as_bytes(),
            b"",
            b"evolv.wait=false",
            b"",
        ]);
        let mut r = &input[..];
        let offer = read_version(&mut r).unwrap();
        assert!(offer.push_options && offer.atomic);
        let cmds = read_commands(&mut r).unwrap();
        assert_eq!(cmds[0].refname, "refs/for/main");
        assert_eq!(read_options(&mut r).unwrap(), vec!["evolv.wait=false"]);
        let mut out = Vec::new();
        write_reports(
            &mut out,
            &[
                Report::Ok {
                    pushed: "refs/for/main".into(),
                    refname: Some("refs/heads/main".into()),
                    old: Some(A.into()),
                    new: Some(B.into()),
                },
                Report::Ng {
                    pushed: "refs/for/x".into(),
                    reason: "conflict\nin a".into(),
                },
            ],
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("ok refs/for/main\n"));
        assert!(text.contains("option refname refs/heads/main\n"));
        assert!(text.contains("ng refs/for/x conflict in a\n"));
        assert!(text.ends_with("0000"));
    }

    #[test]
    fn refuses_malformed_and_oversized_input() {
        let too_many: Vec<String> = (0..=MAX_COMMANDS)
            .map(|_| format!("{A} {B} refs/for/main"))
            .collect();
        let mut lines: Vec<&[u8]> = too_many.iter().map(|s| s.as_bytes()).collect();
        lines.push(b"");
        assert!(read_commands(&mut &pkts(&lines)[..]).is_err());
        assert!(read_commands(&mut &pkts(&[b"zz 11 refs/for/main", b""])[..]).is_err());
        assert!(read_commands(&mut &pkts(&[format!("{A} {B}").as_bytes(), b""])[..]).is_err());
        assert!(read_commands(&mut &pkts(&[format!("{A} {B} r").as_bytes()])[..]).is_err());
        let big = "o".repeat(MAX_OPTION_LEN + 1);
        assert!(read_options(&mut &pkts(&[big.as_bytes(), b""])[..]).is_err());
        let many: Vec<&[u8]> = (0..=MAX_OPTIONS).map(|_| &b"x"[..]).collect();
        assert!(read_options(&mut &pkts(&many)[..]).is_err());
        assert!(read_version(&mut &pkts(&[b"version=2", b""])[..]).is_err());
        assert!(read_version(&mut &pkts(&[b"version=1", b"x"])[..]).is_err());
        assert!(read_version(&mut &b""[..]).is_err());
    }
}
