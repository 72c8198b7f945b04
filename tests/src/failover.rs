//! A throw-away pg_auto_failover cluster for the tests of a primary's loss:
//! a monitor and two data nodes with synchronous replication, started by
//! `scripts/pg-failover-cluster.sh` (the settings and why each are in
//! `docs/operators.md`, "Surviving the loss of the primary"), in a folder
//! of its own under `/dev/shm`, destroyed when dropped.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One cluster; its processes are stopped and its folder removed when dropped.
pub struct Cluster {
    dir: PathBuf,
    /// The multi-host URL clients are given, `target_session_attrs=read-write`.
    pub url: String,
    /// The two data nodes' ports.
    pub ports: [u16; 2],
}

/// One event the monitor recorded.
#[derive(Debug, Clone)]
pub struct Event {
    /// Seconds since the Unix epoch, on this machine's clock.
    pub at: f64,
    pub node: String,
    pub description: String,
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/pg-failover-cluster.sh")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Cluster {
    /// Creates and starts a cluster; returns once its primary has a
    /// synchronous standby (about 8 s).
    pub fn start() -> Cluster {
        let base = if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
        let dir = base.join(format!("crm-failover-{}-{}", std::process::id(), free_port()));
        let (monitor, first, second) = (free_port(), free_port(), free_port());
        let out = Command::new(script())
            .arg("up")
            .arg(&dir)
            .args([monitor, first, second].map(|p| p.to_string()))
            .output()
            .expect("run pg-failover-cluster.sh");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "the cluster did not start:\n{said}");
        let url = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Cluster { dir, url, ports: [first, second] }
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new(script()).arg(args[0]).arg(&self.dir).args(&args[1..]).output().expect("the script");
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// The URL of the cluster's standbys alone (`target_session_attrs=read-only`).
    pub fn standby_url(&self) -> String {
        self.url.replace("target_session_attrs=read-write", "target_session_attrs=read-only")
    }

    /// `node1` or `node2`, whichever takes writes now.
    pub fn primary(&self) -> String {
        self.run(&["primary"])
    }

    /// Kills every process of the primary's node, as the loss of its
    /// machine would; returns the node killed and when it stopped answering
    /// (its processes killed), in seconds since the Unix epoch.
    pub fn kill_primary(&self) -> (String, f64) {
        let said = self.run(&["kill", "primary"]);
        let (node, at) = said.split_once(' ').expect("the node and when it was killed");
        (node.to_string(), at.parse().expect("epoch seconds"))
    }

    /// Starts a killed node's keeper again: it rejoins as a standby.
    pub fn restart(&self, node: &str) {
        self.run(&["start", node]);
    }

    /// Waits until a primary has a synchronous standby again.
    pub fn wait_healthy(&self) {
        self.run(&["wait-healthy", "180"]);
    }

    /// The monitor's events, oldest first.
    pub fn events(&self) -> Vec<Event> {
        self.run(&["events"])
            .lines()
            .filter_map(|line| {
                let mut parts = line.splitn(3, ' ');
                let at = parts.next()?.parse().ok()?;
                Some(Event { at, node: parts.next()?.to_string(), description: parts.next()?.to_string() })
            })
            .collect()
    }
}

impl Drop for Cluster {
    /// Stops the cluster and removes its folder; with `CRM_FAILOVER_KEEP`
    /// set, stops it and keeps the folder (its logs) to look at.
    fn drop(&mut self) {
        let keep = std::env::var_os("CRM_FAILOVER_KEEP").is_some();
        let _ = Command::new(script()).arg(if keep { "down" } else { "destroy" }).arg(&self.dir).output();
        if keep {
            eprintln!("the failover cluster's folder is kept: {}", self.dir.display());
        }
    }
}
