//! Validation output, line by line, as it is written, for a front end that
//! shows it live (the review page streams it into the browser). The sink
//! is per thread: `with_sink` installs it around an `ops` call, and
//! `validate` feeds it while a command runs. Nothing is printed here.
//! TODO(cli): fold into the progress-sink trait of `src/progress.rs` once
//! it lands; the review page is the only caller.

use std::cell::RefCell;
use std::fs::File;
use std::os::unix::fs::FileExt;

type Sink = Box<dyn FnMut(&str, &str)>;

thread_local! {
    static SINK: RefCell<Option<Sink>> = const { RefCell::new(None) };
}

/// Runs `f` with `sink(command, line)` receiving every line of validation
/// output written on this thread meanwhile.
pub fn with_sink<R>(sink: impl FnMut(&str, &str) + 'static, f: impl FnOnce() -> R) -> R {
    let previous = SINK.with(|s| s.borrow_mut().replace(Box::new(sink)));
    let out = f();
    SINK.with(|s| *s.borrow_mut() = previous);
    out
}

/// Whether anyone listens on this thread.
pub fn active() -> bool {
    SINK.with(|s| s.borrow().is_some())
}

/// Follows a command's output file, handing complete lines to the sink.
pub struct Follower<'a> {
    command: &'a str,
    file: &'a File,
    offset: u64,
    partial: Vec<u8>,
}

impl<'a> Follower<'a> {
    pub fn new(command: &'a str, file: &'a File) -> Self {
        Follower {
            command,
            file,
            offset: 0,
            partial: Vec::new(),
        }
    }

    /// Sends the complete lines written since the last call. Reads at an
    /// offset of its own (pread), so the writer's position is untouched.
    pub fn poll(&mut self) {
        if !active() {
            return;
        }
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n) = self.file.read_at(&mut buf, self.offset) {
            if n == 0 {
                break;
            }
            self.offset += n as u64;
            self.partial.extend_from_slice(&buf[..n]);
        }
        while let Some(i) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=i).collect();
            self.emit(&line[..line.len() - 1]);
        }
    }

    /// Sends what is left, a last line without its newline included.
    pub fn finish(mut self) {
        self.poll();
        if !self.partial.is_empty() {
            let rest = std::mem::take(&mut self.partial);
            self.emit(&rest);
        }
    }

    fn emit(&self, line: &[u8]) {
        let text = String::from_utf8_lossy(line);
        let text = text.strip_suffix('\r').unwrap_or(&text);
        SINK.with(|s| {
            if let Some(sink) = s.borrow_mut().as_mut() {
                sink(self.command, text);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    #[test]
    fn complete_lines_are_sent_as_they_are_written_and_the_rest_at_the_end() {
        let mut file = tempfile::tempfile().unwrap();
        let seen = Arc::new(Mutex::new(Vec::<String>::new()));
        let got = seen.clone();
        with_sink(
            move |cmd, line| got.lock().unwrap().push(format!("{cmd}: {line}")),
            || {
                let reader = file.try_clone().unwrap();
                let mut f = Follower::new("make", &reader);
                file.write_all(b"one\r\ntw").unwrap();
                f.poll();
                assert_eq!(seen.lock().unwrap().len(), 1);
                file.write_all(b"o\nthree").unwrap();
                f.finish();
            },
        );
        assert_eq!(
            *seen.lock().unwrap(),
            ["make: one", "make: two", "make: three"]
        );
        assert!(!active());
    }
}
