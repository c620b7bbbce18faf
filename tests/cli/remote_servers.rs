//! Real git servers on 127.0.0.1, started by the tests (issue 28 item 4):
//! `git daemon --enable=receive-pack`, smart HTTP through `git
//! http-backend` behind nginx and fcgiwrap, and sshd with keys made here.
//! Each listens on a free port, keeps its files in a temp dir, serves the
//! bare repositories under its `repos/` folder, and is killed on drop.
//!
//! (Apache is installed here too, but Debian's build refuses to run its
//! workers as root, and a CGI running as another user meets git's
//! `safe.directory` check; nginx with fcgiwrap runs the backend as the
//! user that started the test.)

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use crate::common::Error;

/// A git transport the tests push over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Daemon,
    Http,
    Ssh,
}

/// A running server and what a client needs to reach it.
pub struct Server {
    pub transport: Transport,
    dir: TempDir,
    port: u16,
    children: Vec<Child>,
}

impl Server {
    /// Starts a server of `transport`; its repositories go in [`Server::repos`].
    pub fn start(transport: Transport) -> Result<Server, Error> {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir(dir.path().join("repos"))?;
        let mut server = Server {
            transport,
            dir,
            port: 0,
            children: Vec::new(),
        };
        if transport == Transport::Ssh {
            server.make_keys()?;
        }
        server.launch()?;
        Ok(server)
    }

    /// Where the served bare repositories live.
    pub fn repos(&self) -> PathBuf {
        self.dir.path().join("repos")
    }

    /// A new bare repository `name` served here, on branch `main`.
    pub fn bare(&self, name: &str) -> Result<PathBuf, Error> {
        let path = self.repos().join(name);
        git(&self.repos(), &["init", "-q", "--bare", "-b", "main", name])?;
        // http-backend takes pushes only from an authenticated user unless
        // this is set; nginx passes REMOTE_USER too (the pusher's name).
        git(&path, &["config", "http.receivepack", "true"])?;
        Ok(path)
    }

    /// The URL of repository `name` over this transport.
    pub fn url(&self, name: &str) -> String {
        match self.transport {
            Transport::Daemon => format!("git://127.0.0.1:{}/{name}", self.port),
            Transport::Http => format!("http://127.0.0.1:{}/{name}", self.port),
            Transport::Ssh => format!(
                "ssh://{}@127.0.0.1:{}{}",
                user(),
                self.port,
                self.repos().join(name).display()
            ),
        }
    }

    /// The client configuration this transport needs (`core.sshCommand`
    /// with the test's key and port, no host key check), as `git config`
    /// pairs.
    pub fn client_config(&self) -> Vec<(String, String)> {
        if self.transport != Transport::Ssh {
            return Vec::new();
        }
        let key = self.dir.path().join("client_key");
        vec![(
            "core.sshCommand".into(),
            format!(
                "ssh -F /dev/null -i {} -o IdentitiesOnly=yes -o BatchMode=yes \
                 -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR",
                key.display()
            ),
        )]
    }

    /// Stops the server and starts it again on the same port, as an
    /// administrator's restart between two pushes would.
    pub fn restart(&mut self) -> Result<(), Error> {
        self.stop();
        self.launch()
    }

    fn launch(&mut self) -> Result<(), Error> {
        if self.port == 0 {
            self.port = free_port()?;
        }
        match self.transport {
            Transport::Daemon => self.launch_daemon()?,
            Transport::Http => self.launch_http()?,
            Transport::Ssh => self.launch_sshd()?,
        }
        wait_for_port(self.port, &self.dir.path().join("server.log"))
    }

    /// Starts `cmd`, its output appended to the server's log, to be
    /// killed on drop.
    fn spawn(&mut self, cmd: &mut Command) -> Result<(), Error> {
        let log = || {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(self.dir.path().join("server.log"))
        };
        let child = cmd
            .stdin(Stdio::null())
            .stdout(log()?)
            .stderr(log()?)
            .spawn()?;
        self.children.push(child);
        Ok(())
    }

    fn launch_daemon(&mut self) -> Result<(), Error> {
        let repos = self.repos();
        self.spawn(
            Command::new("git")
                .arg("daemon")
                .arg("--reuseaddr")
                .arg("--listen=127.0.0.1")
                .arg(format!("--port={}", self.port))
                .arg(format!("--base-path={}", repos.display()))
                .arg("--export-all")
                .arg("--enable=receive-pack")
                .arg("--informative-errors")
                .arg(&repos),
        )?;
        Ok(())
    }

    fn launch_http(&mut self) -> Result<(), Error> {
        let dir = self.dir.path().to_path_buf();
        let socket = dir.join("fcgi.sock");
        let _ = std::fs::remove_file(&socket);
        self.spawn(
            Command::new(tool("fcgiwrap"))
                .args(["-c", "16", "-s"])
                .arg(format!("unix:{}", socket.display())),
        )?;
        let conf = dir.join("nginx.conf");
        std::fs::write(&conf, nginx_conf(&dir, self.port, &self.repos()))?;
        std::fs::create_dir_all(dir.join("nginx-tmp"))?;
        self.spawn(
            Command::new(tool("nginx"))
                .arg("-p")
                .arg(&dir)
                .arg("-c")
                .arg(&conf),
        )?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while !socket.exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    fn make_keys(&self) -> Result<(), Error> {
        let dir = self.dir.path();
        for name in ["host_key", "client_key"] {
            let out = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(dir.join(name))
                .output()?;
            if !out.status.success() {
                return Err(format!("ssh-keygen: {}", String::from_utf8_lossy(&out.stderr)).into());
            }
        }
        std::fs::copy(dir.join("client_key.pub"), dir.join("authorized_keys"))?;
        Ok(())
    }

    fn launch_sshd(&mut self) -> Result<(), Error> {
        let dir = self.dir.path();
        if is_root() {
            // sshd started by root wants its privilege-separation folder,
            // which the Debian service creates at boot.
            std::fs::create_dir_all("/run/sshd")?;
        }
        let conf = dir.join("sshd_config");
        std::fs::write(
            &conf,
            format!(
                "Port {port}\nListenAddress 127.0.0.1\nHostKey {dir}/host_key\n\
                 AuthorizedKeysFile {dir}/authorized_keys\nPidFile {dir}/sshd.pid\n\
                 StrictModes no\nUsePAM no\nPasswordAuthentication no\n\
                 KbdInteractiveAuthentication no\nPermitRootLogin yes\n\
                 PermitUserEnvironment no\nLogLevel ERROR\n",
                port = self.port,
                dir = dir.display()
            ),
        )?;
        self.spawn(
            Command::new(tool("sshd"))
                .args(["-D", "-e", "-f"])
                .arg(&conf),
        )?;
        Ok(())
    }

    fn stop(&mut self) {
        for mut child in self.children.drain(..) {
            let _ = Command::new("kill")
                .arg("-TERM")
                .arg(child.id().to_string())
                .status();
            let deadline = Instant::now() + Duration::from_secs(5);
            while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        // The port is free again once nothing listens on it.
        let deadline = Instant::now() + Duration::from_secs(5);
        while TcpStream::connect(("127.0.0.1", self.port)).is_ok() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// nginx in the foreground, one process, every temp file under `dir`,
/// passing each request to git http-backend through fcgiwrap.
fn nginx_conf(dir: &Path, port: u16, repos: &Path) -> String {
    let d = dir.display();
    let user = if is_root() { "user root;\n" } else { "" };
    format!(
        "{user}daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/nginx.err;\n\
         events {{ worker_connections 64; }}\n\
         http {{\n  access_log off;\n  client_max_body_size 0;\n\
           client_body_temp_path {d}/nginx-tmp/body;\n  fastcgi_temp_path {d}/nginx-tmp/fcgi;\n\
           proxy_temp_path {d}/nginx-tmp/proxy;\n  uwsgi_temp_path {d}/nginx-tmp/uwsgi;\n\
           scgi_temp_path {d}/nginx-tmp/scgi;\n\
           server {{\n    listen 127.0.0.1:{port};\n    location / {{\n\
               fastcgi_pass unix:{d}/fcgi.sock;\n      fastcgi_buffering off;\n\
               fastcgi_request_buffering off;\n      fastcgi_read_timeout 600s;\n\
               fastcgi_param SCRIPT_FILENAME /usr/lib/git-core/git-http-backend;\n\
               fastcgi_param GIT_PROJECT_ROOT {repos};\n      fastcgi_param GIT_HTTP_EXPORT_ALL \"\";\n\
               fastcgi_param REMOTE_USER pusher;\n      fastcgi_param PATH_INFO $uri;\n\
               fastcgi_param QUERY_STRING $query_string;\n\
               fastcgi_param REQUEST_METHOD $request_method;\n\
               fastcgi_param CONTENT_TYPE $content_type;\n\
               fastcgi_param CONTENT_LENGTH $content_length;\n\
               fastcgi_param REMOTE_ADDR $remote_addr;\n\
               fastcgi_param HTTP_CONTENT_ENCODING $http_content_encoding;\n\
               fastcgi_param GIT_PROTOCOL $http_git_protocol;\n\
               fastcgi_param PATH {path};\n      fastcgi_param HOME {d};\n    }}\n  }}\n}}\n",
        repos = repos.display(),
        path = std::env::var("PATH").unwrap_or_default(),
    )
}

fn tool(name: &str) -> PathBuf {
    PathBuf::from("/usr/sbin").join(name)
}

fn user() -> String {
    let out = Command::new("id").arg("-un").output().ok();
    out.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "root".into())
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().ok();
    out.is_some_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn free_port() -> Result<u16, Error> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn wait_for_port(port: u16, log: &Path) -> Result<(), Error> {
    let deadline = Instant::now() + Duration::from_secs(15);
    while Instant::now() < deadline {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let text = std::fs::read_to_string(log).unwrap_or_default();
    Err(format!("the server did not listen on 127.0.0.1:{port}; its log:\n{text}").into())
}

/// git in `dir`, outside the tests' sealed environment (a server's
/// repository), failing with git's message.
pub fn git(dir: &Path, args: &[&str]) -> Result<String, Error> {
    let out = Command::new("git").args(args).current_dir(dir).output()?;
    if !out.status.success() {
        return Err(format!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
