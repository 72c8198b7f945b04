//! A PostgreSQL server of its own, in a temporary folder on a free loopback
//! port, for tests and benchmarks: nothing to install by hand but Debian's
//! `postgresql` package (`scripts/setup.sh` installs it).
//!
//! PostgreSQL refuses to run as root; as root, the server runs as the
//! `postgres` user the package creates. The server stops and its folder is
//! deleted when the [`Throwaway`] is dropped, or, for one kept in a `static`,
//! by a watchdog process once this process has ended.

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub struct Throwaway {
    folder: PathBuf,
    bin: PathBuf,
    port: u16,
    as_postgres: bool,
    /// The server's command-line options, as the last start used them.
    options: String,
}

/// Where PostgreSQL's programs are: `CRM_PG_BIN`, else Debian's folder for
/// the newest installed version.
fn bin_dir() -> Result<PathBuf, String> {
    if let Ok(dir) = std::env::var("CRM_PG_BIN") {
        return Ok(PathBuf::from(dir));
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|_| "PostgreSQL is not installed: run scripts/setup.sh (apt-get install postgresql)".to_string())?
        .filter_map(|e| Some(e.ok()?.path().join("bin")))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    versions.sort();
    versions.pop().ok_or_else(|| "no PostgreSQL under /usr/lib/postgresql has an initdb".to_string())
}

impl Throwaway {
    /// Starts a new server with extra `settings` (`name=value`, each passed
    /// as `-c`), for example `fsync=off` where a test does not need the
    /// server itself to survive a crash.
    pub fn start(settings: &[&str]) -> Result<Throwaway, String> {
        Throwaway::initialized()?.listen(settings)
    }

    /// [`Throwaway::start`] with TLS on, serving this certificate chain and
    /// private key (PEM), as a managed database does.
    pub fn start_with_tls(chain: &str, key: &str, settings: &[&str]) -> Result<Throwaway, String> {
        let server = Throwaway::initialized()?;
        // PostgreSQL's default names in its data folder; the key readable by its user alone.
        for (name, pem) in [("server.crt", chain), ("server.key", key)] {
            let path = server.data().join(name);
            std::fs::write(&path, pem).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            run(Command::new("chmod").arg("600").arg(&path))?;
            if server.as_postgres {
                run(Command::new("chown").arg("postgres").arg(&path))?;
            }
        }
        server.listen(&[settings, &["ssl=on"]].concat())
    }

    /// A hot standby of `primary`, copied from it with `pg_basebackup -R`
    /// (after a fast checkpoint: the default, spread, waits minutes),
    /// that streams the primary's log through `upstream_port`: the
    /// primary's own port, or a proxy's in front of it (a WAN's latency, a
    /// link a test cuts). It serves reads only, on a port of its own, with
    /// the same extra `settings` as the primary (a standby refuses to run
    /// with fewer connections than its primary).
    pub fn standby_of(primary: &Throwaway, upstream_port: u16, settings: &[&str]) -> Result<Throwaway, String> {
        let server = Throwaway::folder()?;
        run(server
            .tool("pg_basebackup")
            .args(["-h", "127.0.0.1", "-U", "postgres", "-X", "stream", "-R", "--no-sync", "--checkpoint=fast", "-p"])
            .arg(primary.port.to_string())
            .arg("-D")
            .arg(server.data()))?;
        // Later lines win: the log comes through `upstream_port`, and a
        // lost link is tried again within half a second.
        let upstream = format!(
            "primary_conninfo = 'host=127.0.0.1 port={upstream_port} user=postgres'\n\
             wal_retrieve_retry_interval = '500ms'\n"
        );
        let auto = server.data().join("postgresql.auto.conf");
        let mut conf = std::fs::read_to_string(&auto).map_err(|e| format!("cannot read {}: {e}", auto.display()))?;
        conf.push_str(&upstream);
        std::fs::write(&auto, conf).map_err(|e| format!("cannot write {}: {e}", auto.display()))?;
        server.spawn_watchdog()?;
        server.listen(settings)
    }

    /// A new server's folder and data, not yet started.
    fn initialized() -> Result<Throwaway, String> {
        let server = Throwaway::folder()?;
        run(server
            .tool("initdb")
            .args(["-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync", "-D"])
            .arg(server.data()))?;
        server.spawn_watchdog()?;
        Ok(server)
    }

    /// A new server's folder, empty, owned by the user the server runs as.
    fn folder() -> Result<Throwaway, String> {
        let bin = bin_dir()?;
        let as_postgres = is_root();
        let folder = std::env::temp_dir().join(format!("crm-pg-{}-{}", std::process::id(), unique()));
        std::fs::create_dir_all(&folder).map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        let server = Throwaway { folder, bin, port: 0, as_postgres, options: String::new() };
        if as_postgres {
            run(Command::new("chown").arg("postgres").arg(&server.folder))?;
        }
        Ok(server)
    }

    /// Starts the server on a free port; another process may take the port
    /// between the probe and the start, so a few ports are tried.
    fn listen(mut self, settings: &[&str]) -> Result<Throwaway, String> {
        let mut last = String::new();
        for _ in 0..5 {
            self.port = free_port()?;
            self.options = format!("-p {} -k {} -c listen_addresses=127.0.0.1", self.port, self.folder.display());
            for setting in settings {
                self.options.push_str(&format!(" -c {setting}"));
            }
            match self.pg_ctl_start() {
                Ok(()) => return Ok(self),
                Err(e) => last = e,
            }
        }
        Err(format!("the throw-away PostgreSQL did not start: {last}"))
    }

    fn pg_ctl_start(&self) -> Result<(), String> {
        let log = self.folder.join("server.log");
        run(self.tool("pg_ctl").arg("-D").arg(self.data()).arg("-l").arg(&log).args([
            "-w",
            "-t",
            "60",
            "-o",
            &self.options,
            "start",
        ]))
        .map_err(|e| format!("{e}\n{}", std::fs::read_to_string(&log).unwrap_or_default()))
    }

    /// Freezes the server's WAL writer (until the next crash), so that a
    /// commit made with `synchronous_commit = off` stays in the server's
    /// memory until a synchronous commit flushes it: a crash test then loses
    /// every write nothing flushed, not only those the writer had not reached.
    pub fn freeze_wal_writer(&self) -> Result<(), String> {
        let postmaster = self.postmaster()?;
        // The postmaster starts it once the server is ready, which a loaded
        // machine may not have got to yet when the start returns.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let writer = loop {
            let writer = processes_where(|stat| stat.parent == postmaster).into_iter().find(|p| {
                std::fs::read(format!("/proc/{}/cmdline", p.pid)).is_ok_and(|c| c.starts_with(b"postgres: walwriter"))
            });
            match writer {
                Some(writer) => break writer,
                None if std::time::Instant::now() < until => std::thread::sleep(std::time::Duration::from_millis(50)),
                None => return Err("the server has no WAL writer process".into()),
            }
        };
        run(Command::new("kill").args(["-STOP", &writer.pid]))
    }

    /// The server's main process id, from its pid file.
    fn postmaster(&self) -> Result<String, String> {
        let pid_file = self.data().join("postmaster.pid");
        let pid = std::fs::read_to_string(&pid_file).map_err(|e| format!("cannot read {}: {e}", pid_file.display()))?;
        Ok(pid.lines().next().unwrap_or_default().trim().to_owned())
    }

    /// [`Throwaway::crash`], then [`Throwaway::recover`].
    pub fn crash_and_recover(&self) -> Result<(), String> {
        self.crash()?;
        self.recover()
    }

    /// Starts a crashed server again on the same port: it recovers from its log.
    pub fn recover(&self) -> Result<(), String> {
        self.pg_ctl_start()
    }

    /// Kills the server as a power cut would: every process of it frozen,
    /// then killed, so none writes after the moment of the crash.
    pub fn crash(&self) -> Result<(), String> {
        let pid = self.postmaster()?;
        // The server and its children (each a session of its own).
        let mut processes = vec![pid.clone()];
        processes.extend(processes_where(|stat| stat.parent == pid).into_iter().map(|p| p.pid));
        run(Command::new("kill").arg("-STOP").args(&processes))?;
        run(Command::new("kill").arg("-KILL").args(&processes))?;
        while !processes_where(|stat| processes.contains(&stat.pid) && stat.state != "Z").is_empty() {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        // A killed server's pid may linger as an unreaped zombie, which the
        // new server would take for a running one.
        let _ = std::fs::remove_file(self.data().join("postmaster.pid"));
        let _ = std::fs::remove_file(self.folder.join(format!(".s.PGSQL.{}.lock", self.port)));
        Ok(())
    }

    /// Restarts the server on the same port and data (`pg_ctl restart -m
    /// fast`: clients are disconnected, committed data stays), as a failover
    /// or an operator's restart would.
    pub fn restart(&self) -> Result<(), String> {
        // With its log named again: otherwise the new server would write to
        // (and hold open) this process's pipe.
        let log = self.folder.join("server.log");
        run(self
            .tool("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .arg("-l")
            .arg(&log)
            .args(["-m", "fast", "-w", "-t", "60", "restart"]))
    }

    /// Promotes a standby to a primary (`pg_ctl promote`, as an operator or
    /// a failover manager does), waiting until it takes writes.
    pub fn promote(&self) -> Result<(), String> {
        run(self.tool("pg_ctl").arg("-D").arg(self.data()).args(["-w", "-t", "60", "promote"]))
    }

    /// The URL of `database` on this server.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Creates `database` unless it exists (names of `a-z`, `0-9` and `_`),
    /// and returns its URL.
    pub fn database(&self, database: &str) -> Result<String, String> {
        assert!(
            database.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "a database name of a-z, 0-9 and _"
        );
        let out = self
            .psql()
            .args(["-d", "postgres", "-c", &format!("CREATE DATABASE {database}")])
            .output()
            .map_err(|e| format!("cannot run psql: {e}"))?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.success() || stderr.contains("already exists") {
            true => Ok(self.url(database)),
            false => Err(format!("cannot create the database {database}: {stderr}")),
        }
    }

    /// What `query` answers on `database`: its rows unaligned, one a line,
    /// trimmed; psql's error when it fails.
    pub fn answer(&self, database: &str, query: &str) -> Result<String, String> {
        let out = self.psql().args(["-d", database, "-At", "-c", query]).output();
        let out = out.map_err(|e| format!("cannot run psql: {e}"))?;
        match out.status.success() {
            true => Ok(String::from_utf8_lossy(&out.stdout).trim().to_string()),
            false => Err(format!("{query}: {}", String::from_utf8_lossy(&out.stderr))),
        }
    }

    /// `psql` on this server as the `postgres` role, quiet and stopping at the
    /// first error; add `-d`, `-c` or `-f`.
    pub fn psql(&self) -> Command {
        let mut cmd = Command::new(self.bin.join("psql"));
        cmd.args(["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-U", "postgres", "-p"])
            .arg(self.port.to_string());
        cmd
    }

    /// The server's programs folder (for `pgbench` and friends).
    pub fn bin(&self) -> &Path {
        &self.bin
    }

    fn data(&self) -> PathBuf {
        self.folder.join("data")
    }

    /// One of PostgreSQL's programs, run as the user the server runs as.
    fn tool(&self, name: &str) -> Command {
        let program = self.bin.join(name);
        match self.as_postgres {
            true => {
                let mut cmd = Command::new("runuser");
                cmd.args(["-u", "postgres", "--"]).arg(program);
                cmd
            }
            false => Command::new(program),
        }
    }

    /// The shell line that stops the server at once and deletes its folder.
    fn teardown_script(&self) -> String {
        let pg_ctl = self.bin.join("pg_ctl");
        let stop = format!("'{}' -D '{}' -m immediate stop", pg_ctl.display(), self.data().display());
        let stop = match self.as_postgres {
            true => format!("runuser -u postgres -- {stop}"),
            false => stop,
        };
        format!("{stop} >/dev/null 2>&1; rm -rf '{}'", self.folder.display())
    }

    /// A process of its own (own process group: a Ctrl-C of the tests does
    /// not reach it) that tears the server down once this process is gone.
    fn spawn_watchdog(&self) -> Result<(), String> {
        let script = format!(
            "while [ -d /proc/{pid} ]; do sleep 1; done; {teardown}",
            pid = std::process::id(),
            teardown = self.teardown_script()
        );
        Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map(|_| ())
            .map_err(|e| format!("cannot start the watchdog: {e}"))
    }
}

impl Drop for Throwaway {
    fn drop(&mut self) {
        let _ = Command::new("sh").args(["-c", &self.teardown_script()]).status();
    }
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.stdin(Stdio::null()).output().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    match out.status.success() {
        true => Ok(()),
        false => Err(format!(
            "{cmd:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

/// A process as `/proc/PID/stat` describes it.
struct ProcessStat {
    pid: String,
    state: String,
    parent: String,
}

/// The processes whose stat matches.
fn processes_where(matches: impl Fn(&ProcessStat) -> bool) -> Vec<ProcessStat> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // "PID (command) STATE PARENT ...": the command may hold spaces.
            let (pid, rest) = stat.split_once(" (")?;
            let mut fields = rest.rsplit_once(')')?.1.split_whitespace();
            let (state, parent) = (fields.next()?.to_owned(), fields.next()?.to_owned());
            Some(ProcessStat { pid: pid.to_owned(), state, parent })
        })
        .filter(|p| matches(p))
        .collect()
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn free_port() -> Result<u16, String> {
    let probe = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    probe.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

/// Tells apart servers started by one process.
fn unique() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}
