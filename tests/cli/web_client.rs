//! A client of `git evolv serve` for the tests: the server started and
//! stopped, and HTTP requests over plain TCP (no HTTP client crate).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{BIN, TestRepo, sealed};

/// A running `git evolv serve`, stopped (SIGINT) on drop (also used by
/// `hardening_bytes`).
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) port: u16,
    pub(crate) token: String,
    pub(crate) cookie: String,
}

#[derive(Debug)]
pub(crate) struct Resp {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
}

impl Resp {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", self.status, self.body))
    }
}

pub(crate) fn dechunk(raw: &str) -> String {
    let mut out = String::new();
    let mut rest = raw;
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}

/// One HTTP/1.1 request on a fresh connection, read to its end.
/// A GET of `path` with `headers`, no body.
pub(crate) fn get(port: u16, path: &str, headers: &[(&str, &str)]) -> Resp {
    request(port, "GET", path, headers, "")
}

pub(crate) fn request(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Resp {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: 127.0.0.1:{port}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    parse(&raw)
}

pub(crate) fn parse(raw: &str) -> Resp {
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((raw, ""));
    let mut lines = head.lines();
    let status = lines.next().unwrap()[9..12].parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_string()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    Resp {
        status,
        body: if chunked {
            dechunk(body)
        } else {
            body.to_string()
        },
        headers,
    }
}

impl Server {
    pub(crate) fn start(repo: &TestRepo) -> Server {
        Server::start_on(repo, 0)
    }

    /// A server on `port` (0: any), signed in with its one-time token.
    pub(crate) fn start_on(repo: &TestRepo, port: u16) -> Server {
        let mut server = Server::spawn(repo, port);
        let login = get(server.port, &format!("/?token={}", server.token), &[]);
        server.cookie = login
            .header("set-cookie")
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_string();
        server
    }

    /// A server whose one-time token is still unused (no cookie).
    pub(crate) fn start_unsigned(repo: &TestRepo) -> Server {
        Server::spawn(repo, 0)
    }

    fn spawn(repo: &TestRepo, port: u16) -> Server {
        let mut cmd = sealed(BIN, repo.home());
        cmd.args(["serve", "--no-open"])
            .current_dir(repo.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if port != 0 {
            cmd.args(["--port", &port.to_string()]);
        }
        let mut child = cmd.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().to_string();
        let rest = url
            .strip_prefix("http://127.0.0.1:")
            .unwrap_or_else(|| panic!("unexpected URL {url:?}"));
        let (port, token) = rest.split_once("/?token=").unwrap();
        let port: u16 = port.parse().unwrap();
        Server {
            child,
            port,
            token: token.to_string(),
            cookie: String::new(),
        }
    }

    pub(crate) fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub(crate) fn get(&self, path: &str) -> Resp {
        get(self.port, path, &[("Cookie", &self.cookie)])
    }

    pub(crate) fn post(&self, path: &str, body: &str) -> Resp {
        let origin = self.origin();
        request(
            self.port,
            "POST",
            path,
            &[
                ("Cookie", &self.cookie),
                ("Origin", &origin),
                ("Content-Type", "application/json"),
            ],
            body,
        )
    }

    /// Sends SIGINT, as Ctrl-C does, and waits for the exit code.
    pub(crate) fn interrupt(mut self) -> i32 {
        signal(self.child.id(), "INT");
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "serve did not stop within 10 s of SIGINT"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

pub(crate) fn signal(pid: u32, name: &str) {
    let ok = std::process::Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok);
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            signal(self.child.id(), "KILL");
            let _ = self.child.wait();
        }
    }
}
