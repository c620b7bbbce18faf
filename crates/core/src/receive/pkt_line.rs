//! git's pkt-line framing (gitprotocol-common(5)): four hex digits giving
//! the length of the line including themselves, then the data; `0000` is a
//! flush packet. Longer than [`MAX_PKT`] is refused, as git refuses it.

use std::io::{Read, Write};

use crate::error::{Error, Result};

/// The largest packet git writes or accepts, header included (LARGE_PACKET_MAX).
pub const MAX_PKT: usize = 65520;
/// The largest payload of one packet.
pub const MAX_DATA: usize = MAX_PKT - 4;

/// One packet read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pkt {
    /// A data line, its trailing `\n` removed.
    Data(Vec<u8>),
    /// `0000`: the end of a section.
    Flush,
    /// The stream ended before a packet started.
    Eof,
}

fn malformed(what: impl Into<String>) -> Error {
    Error::invalid(
        format!("malformed pkt-line from git: {}", what.into()),
        "this is git's receive-pack talking to the proc-receive hook: run the hook only from git (it is not a command for people), with git 2.29 or later",
    )
}

/// Reads one packet from `r`.
pub fn read(r: &mut impl Read) -> Result<Pkt> {
    let mut head = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut head[got..]) {
            Ok(0) if got == 0 => return Ok(Pkt::Eof),
            Ok(0) => return Err(malformed("the stream ended inside a length")),
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(malformed(format!("read failed: {e}"))),
        }
    }
    let text = std::str::from_utf8(&head).map_err(|_| malformed("a length that is not hex"))?;
    let len = usize::from_str_radix(text, 16)
        .map_err(|_| malformed(format!("a length that is not hex: {text:?}")))?;
    match len {
        0 => return Ok(Pkt::Flush),
        1..=3 => {
            return Err(malformed(format!(
                "a special packet {text} where data was expected"
            )));
        }
        _ if len > MAX_PKT => {
            return Err(malformed(format!(
                "a packet of {len} bytes (at most {MAX_PKT})"
            )));
        }
        _ => {}
    }
    let mut data = vec![0u8; len - 4];
    r.read_exact(&mut data)
        .map_err(|e| malformed(format!("the stream ended inside a packet: {e}")))?;
    if data.last() == Some(&b'\n') {
        data.pop();
    }
    Ok(Pkt::Data(data))
}

/// Writes `data` as one packet (with a trailing `\n`, as git writes text).
pub fn write(w: &mut impl Write, data: &[u8]) -> std::io::Result<()> {
    let data = &data[..data.len().min(MAX_DATA - 1)];
    write!(w, "{:04x}", data.len() + 5)?;
    w.write_all(data)?;
    w.write_all(b"\n")
}

/// Writes a flush packet.
pub fn flush(w: &mut impl Write) -> std::io::Result<()> {
    w.write_all(b"0000")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(mut input: &[u8]) -> Vec<Result<Pkt>> {
        let mut out = Vec::new();
        loop {
            let p = read(&mut input);
            let stop = matches!(p, Ok(Pkt::Eof) | Err(_));
            out.push(p);
            if stop {
                return out;
            }
        }
    }

    #[test]
    fn round_trips_lines_and_flushes() {
        let mut buf = Vec::new();
        write(&mut buf, b"version=1").unwrap();
        flush(&mut buf).unwrap();
        assert_eq!(&buf, b"000eversion=1\n0000");
        let got: Vec<Pkt> = all(&buf).into_iter().map(|p| p.unwrap()).collect();
        assert_eq!(
            got,
            vec![Pkt::Data(b"version=1".to_vec()), Pkt::Flush, Pkt::Eof]
        );
    }

    #[test]
    fn refuses_malformed_packets() {
        for bad in [&b"00"[..], b"zzzz", b"0002", b"ffff", b"0010short", b"000"] {
            let r = all(bad);
            let last = r.last().unwrap();
            assert!(last.is_err(), "{bad:?}: {r:?}");
            assert_eq!(last.as_ref().unwrap_err().code(), "invalid_input");
        }
    }
}
