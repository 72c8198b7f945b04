//! Black-box test harness: starts the real `crm-host` binary on loopback ports
//! (port 0, read back from its output) with a temporary data dir, and talks HTTP.
//! The tests themselves are one binary, `it/main.rs`.
//!
//! The binary is `target/<profile>/crm-host` beside the test executable, or
//! `CRM_HOST_BIN`. `cargo test --workspace` builds it before any test runs.
//! Hosts run on the embedded store (fjall, or sled with
//! `CRM_TEST_STORE=sled`), or on PostgreSQL with `CRM_TEST_STORE=postgres`
//! (see [`backend`]).
//!
//! Beside the hosts, the stand-ins the tests talk to: the Envia simulator
//! ([`envia_sim`]), a webhook receiver ([`receiver`]), and a WAN link in user
//! space ([`wan`]: each chunk held for the one-way delay, a link a test cuts);
//! `src/bin/` runs each as a process, for benchmarks and manual tries.

pub mod backend;
pub mod envia_sim;
pub mod failover;
pub mod receiver;
pub mod shop;
pub mod site;
pub mod wan;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use reqwest::{Method, StatusCode};
pub use serde_json::{Value, json};

/// The plugin contract this host implements, as components name it
/// (`crm:plugin@1.2.0`): what the components built from `plugins/` say they
/// were built against.
pub fn contract() -> String {
    format!("crm:plugin@{}", crm_contract::Text::today().version())
}

/// The admin token every test host runs with.
pub const ADMIN_TOKEN: &str = "test-admin-token";

/// A running host. Killed when dropped.
pub struct Host {
    child: Option<Child>,
    pub api: String,
    pub admin: String,
    /// The `*` token of the demo organization (first start of a data dir only).
    pub demo_token: Option<String>,
    pub demo_org: Option<String>,
    /// Everything the host printed on stdout up to readiness.
    pub stdout: Vec<String>,
    data_dir: PathBuf,
    _temp: Option<tempfile::TempDir>,
    pub client: reqwest::Client,
}

/// How long a host may take to print its addresses: a debug host's first
/// start compiles every component (about 11 s with the Python partner).
const START_WAIT: Duration = Duration::from_secs(120);

/// How many of the host's last log lines a failed start shows.
const LOG_TAIL_LINES: usize = 40;

/// The last lines a host logged, kept while they are forwarded to the
/// test's output, so that a start that fails says what the host was doing.
#[derive(Clone, Default)]
struct LogTail(std::sync::Arc<std::sync::Mutex<std::collections::VecDeque<String>>>);

impl LogTail {
    fn forward(&self, stderr: std::process::ChildStderr) {
        let tail = self.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("{line}");
                let mut lines = tail.0.lock().unwrap();
                if lines.len() == LOG_TAIL_LINES {
                    lines.pop_front();
                }
                lines.push_back(line);
            }
        });
    }

    fn text(&self) -> String {
        // What the host wrote just before it was killed has had a moment to arrive.
        std::thread::sleep(Duration::from_millis(100));
        self.0.lock().unwrap().iter().cloned().collect::<Vec<_>>().join("\n")
    }
}

/// The last [`LOG_TAIL_LINES`] lines of a log file.
fn last_lines_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(LOG_TAIL_LINES)..].join("\n")
}

/// A response, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Reply {
    /// The body as JSON (`Null` when empty or not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

pub fn host_binary() -> PathBuf {
    if let Ok(bin) = std::env::var("CRM_HOST_BIN") {
        return bin.into();
    }
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe.parent().and_then(Path::parent).expect("target/<profile>/deps");
    let bin = profile_dir.join(format!("crm-host{}", std::env::consts::EXE_SUFFIX));
    assert!(bin.exists(), "{} is missing: run `cargo test --workspace` (or cargo build -p crm-host)", bin.display());
    bin
}

/// `crm-host serve` on `data_dir` (its store there, or the test database
/// `backend` names for it), both listeners on free loopback ports, none of
/// the caller's own `CRM_*` settings, the tests' admin token and the shared
/// component cache. [`Host`] starts it; a test that expects it to fail runs it.
pub fn serve_command(data_dir: &Path) -> Command {
    let mut cmd = Command::new(host_binary());
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--data-dir"])
        .arg(data_dir)
        .env_remove("CRM_PLUGINS_DIR")
        .env("CRM_ADMIN_TOKEN", ADMIN_TOKEN)
        .env_remove("CRM_LISTEN")
        .env_remove("CRM_ADMIN_LISTEN")
        .env_remove("CRM_DATA_DIR")
        .env_remove("CRM_STORE_URL")
        .env_remove("CRM_STORE_READ_URL")
        .env_remove("CRM_WRITE_HOST_URL")
        .env("RUST_LOG", "warn")
        .env("CRM_CACHE_DIR", shared_cache_dir());
    if let Some(url) = backend::store_url_for(data_dir) {
        cmd.env("CRM_STORE_URL", url);
    }
    match backend::embedded_engine() {
        Some(engine) => cmd.env("CRM_STORE_ENGINE", engine.name()),
        None => cmd.env_remove("CRM_STORE_ENGINE"),
    };
    cmd
}

/// One compiled-component cache for every test host: compiling takes seconds
/// in a debug build, and entries are keyed by content, so sharing is safe.
pub fn shared_cache_dir() -> PathBuf {
    host_binary().parent().expect("target/<profile>").join("component-cache")
}

/// A component built from `plugins/` (e.g. `misbehave`, `partner_hello`).
pub fn built_component(file_stem: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/plugins/wasm32-wasip2/release")
        .join(format!("{file_stem}.wasm"));
    assert!(path.exists(), "{} is missing: build the host first (its build script builds plugins/)", path.display());
    path
}

/// The environment of a host without the search index's background fold
/// (`CRM_SEARCH_FOLD_MS=0`): for tests that count the host's own commits, or
/// that read the search log and the lists apart.
pub const NO_BACKGROUND_FOLD: [(&str, &str); 1] = [("CRM_SEARCH_FOLD_MS", "0")];

impl Host {
    /// A host on a fresh data dir with default settings.
    pub async fn start() -> Host {
        Host::start_with(&[]).await
    }

    /// A host on a fresh data dir with extra environment variables.
    pub async fn start_with(env: &[(&str, &str)]) -> Host {
        let temp = tempfile::tempdir().expect("temp dir");
        let dir = temp.path().to_path_buf();
        let mut host = Host::start_in(&dir, env).await;
        host._temp = Some(temp);
        host
    }

    /// A host on a fresh data dir with these components in its `--plugins-dir`.
    pub async fn start_with_plugins(components: &[&str], env: &[(&str, &str)]) -> Host {
        let files: Vec<PathBuf> = components.iter().map(|stem| built_component(stem)).collect();
        Host::start_with_plugin_files(&files, env).await
    }

    /// A host on a fresh data dir with copies of these `.wasm` files in its
    /// `--plugins-dir`.
    pub async fn start_with_plugin_files(files: &[PathBuf], env: &[(&str, &str)]) -> Host {
        let temp = tempfile::tempdir().expect("temp dir");
        let plugins = temp.path().join("plugins");
        std::fs::create_dir_all(&plugins).unwrap();
        for file in files {
            std::fs::copy(file, plugins.join(file.file_name().expect("a file name"))).unwrap();
        }
        let data = temp.path().join("data");
        let mut env: Vec<(&str, &str)> = env.to_vec();
        let plugins_text = plugins.display().to_string();
        env.push(("CRM_PLUGINS_DIR", &plugins_text));
        let mut host = Host::start_in(&data, &env).await;
        host._temp = Some(temp);
        host
    }

    /// A host on a fresh data dir whose log (stderr) goes to a file, read
    /// back with [`Host::log`].
    pub async fn start_logging(env: &[(&str, &str)]) -> Host {
        let temp = tempfile::tempdir().expect("temp dir");
        let mut host = Host::launch(&temp.path().join("data"), env, Some(&temp.path().join("stderr.log"))).await;
        host._temp = Some(temp);
        host
    }

    /// What a host of [`Host::start_logging`] has logged so far.
    pub fn log(&self) -> String {
        let temp = self._temp.as_ref().expect("a host of start_logging");
        std::fs::read_to_string(temp.path().join("stderr.log")).unwrap_or_default()
    }

    /// `n` hosts, each on a fresh data dir, all on one new PostgreSQL
    /// database of the test server (`label` names it), as operators run many
    /// hosts near their customers.
    pub async fn sharing(label: &str, n: usize, env: &[(&str, &str)]) -> Vec<Host> {
        let url = backend::database(label);
        let mut env = env.to_vec();
        env.push(("CRM_STORE_URL", &url));
        let mut hosts = Vec::new();
        for _ in 0..n {
            hosts.push(Host::start_with(&env).await);
        }
        hosts
    }

    /// A host on `data_dir` (which the caller keeps), e.g. to restart on the same data.
    pub async fn start_in(data_dir: &Path, env: &[(&str, &str)]) -> Host {
        Host::launch(data_dir, env, None).await
    }

    /// Starts the host with its log going to `log_file`, or forwarded to the
    /// test's own output; returns once it answers `/readyz`.
    async fn launch(data_dir: &Path, env: &[(&str, &str)], log_file: Option<&Path>) -> Host {
        let mut cmd = serve_command(data_dir);
        let log_tail = LogTail::default();
        cmd.stdout(Stdio::piped()).stderr(match log_file {
            Some(path) => Stdio::from(std::fs::File::create(path).expect("log file")),
            None => Stdio::piped(),
        });
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start crm-host");
        if let Some(stderr) = child.stderr.take() {
            log_tail.forward(stderr);
        }
        let stdout = child.stdout.take().expect("stdout");
        // Read on a thread, awaited here: a blocking wait would hold the
        // test's runtime, and what runs on it (a simulator, a WAN link).
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<String>();
        std::thread::spawn(move || {
            // Once nobody listens, the lines are read and dropped: the pipe never fills.
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut lines = Vec::new();
        let (mut api, mut admin) = (None, None);
        let mut demo_token = None;
        let mut demo_org = None;
        while api.is_none() || admin.is_none() {
            let line = match tokio::time::timeout(START_WAIT, rx.recv()).await {
                Ok(Some(line)) => line,
                waited => {
                    let what = match waited {
                        Err(_) => format!("did not print its addresses within {START_WAIT:?}"),
                        Ok(_) => "exited before it printed its addresses".into(),
                    };
                    let _ = child.kill();
                    let _ = child.wait();
                    let log = log_file.map_or_else(|| log_tail.text(), last_lines_of);
                    panic!("crm-host {what}; its last lines:\n-- stdout --\n{}\n-- log --\n{log}", lines.join("\n"));
                }
            };
            if let Some(url) = line.strip_prefix("crm-host: API listening on ") {
                api = Some(url.to_string());
            } else if let Some(url) = line.strip_prefix("crm-host: admin API listening on ") {
                admin = Some(url.to_string());
            }
            lines.push(line);
        }
        // A host that stops answering fails its test instead of stalling the run.
        let mut client = reqwest::Client::builder().timeout(Duration::from_secs(120));
        // A host serving TLS is reached trusting the chain it serves, and only it.
        if let Some((_, chain)) = env.iter().find(|(k, _)| *k == "CRM_TLS_CERT") {
            let pem = std::fs::read(chain).expect("the host's certificate chain");
            client = client.tls_certs_only(reqwest::Certificate::from_pem_bundle(&pem).expect("PEM certificates"));
        }
        let client = client.build().expect("HTTP client");
        let api = api.unwrap();
        // Ready means bootstrap is done: collect what it printed.
        for _ in 0..200 {
            if let Ok(r) = client.get(format!("{api}/readyz")).send().await
                && r.status() == StatusCode::OK
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        while let Ok(Some(line)) = tokio::time::timeout(Duration::from_millis(50), rx.recv()).await {
            lines.push(line);
        }
        for line in &lines {
            if let Some(t) = line.strip_prefix("crm-host: demo API token (shown once): ") {
                demo_token = Some(t.to_string());
            }
            if let Some(o) = line.strip_prefix("crm-host: created the demo organization ") {
                demo_org = Some(o.to_string());
            }
        }
        Host {
            child: Some(child),
            api,
            admin: admin.unwrap(),
            demo_token,
            demo_org,
            stdout: lines,
            data_dir: data_dir.to_path_buf(),
            _temp: None,
            client,
        }
    }

    /// The host's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// SIGTERM, then waits at most `limit` for the exit; `Some(success)` when
    /// it exited in time, `None` when it was still running (it is then killed).
    pub async fn terminate_within(&mut self, limit: Duration) -> Option<bool> {
        let child = self.child.as_ref().expect("running");
        let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill");
        assert!(status.success());
        self.exit_within(limit).await
    }

    /// Waits at most `limit` for the host to exit on its own; `Some(success)`
    /// when it did, `None` when it was still running (it is then killed).
    /// The test's runtime goes on meanwhile: a host may be waiting on what
    /// runs there (a simulator's answer) to exit.
    pub async fn exit_within(&mut self, limit: Duration) -> Option<bool> {
        let mut child = self.child.take().expect("running");
        let until = std::time::Instant::now() + limit;
        while std::time::Instant::now() < until {
            if let Some(status) = child.try_wait().expect("wait") {
                return Some(status.success());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let _ = child.kill();
        let _ = child.wait();
        None
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// `kill -9`: no chance to flush anything.
    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// SIGTERM, then waits for the exit (off the test's runtime, which goes
    /// on meanwhile); returns whether it exited with success.
    pub async fn terminate(&mut self) -> bool {
        let mut child = self.child.take().expect("running");
        let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill");
        assert!(status.success());
        let exited = tokio::task::spawn_blocking(move || child.wait().expect("wait"));
        exited.await.expect("the wait for the exit").success()
    }

    /// A request on the public API with an optional token (as Bearer).
    pub async fn call(&self, method: Method, path: &str, token: Option<&str>, body: Option<&Value>) -> Reply {
        let mut req = self.client.request(method, format!("{}{}", self.api, path));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        read(req).await
    }

    pub async fn get(&self, path: &str, token: &str) -> Reply {
        self.call(Method::GET, path, Some(token), None).await
    }

    pub async fn post(&self, path: &str, token: &str, body: &Value) -> Reply {
        self.call(Method::POST, path, Some(token), Some(body)).await
    }

    /// The host's `/metrics`, as text.
    async fn metrics(&self) -> String {
        self.client.get(format!("{}/metrics", self.admin)).send().await.unwrap().text().await.unwrap()
    }

    /// A metric without labels, from the host's `/metrics` (0 when absent).
    pub async fn metric(&self, name: &str) -> f64 {
        let text = self.metrics().await;
        let prefix = format!("{name} ");
        text.lines().find_map(|l| l.strip_prefix(&prefix)?.parse().ok()).unwrap_or(0.0)
    }

    /// How many store calls of kind `op` (`find`, `count_found`...) the
    /// host has made, from its metrics: which path a query took.
    pub async fn store_operations(&self, op: &str) -> f64 {
        self.labelled_metric("crm_store_operations_total", &format!(r#"op="{op}""#)).await
    }

    /// The sum of a labelled metric's series that carry `label`
    /// (`side="replica"`), from the host's `/metrics` (0 when absent).
    pub async fn labelled_metric(&self, name: &str, label: &str) -> f64 {
        let text = self.metrics().await;
        let series = format!("{name}{{");
        text.lines()
            .filter(|l| l.starts_with(&series) && l.contains(label))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            // From 0.0: an empty f64 `sum` is -0.0, which reads oddly in a failed assertion.
            .fold(0.0, |total, n| total + n)
    }

    /// A raw request on the public API, for header-level tests.
    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.client.request(method, format!("{}{}", self.api, path))
    }

    /// An admin API call with the admin token.
    pub async fn admin(&self, method: Method, path: &str, body: Option<&Value>) -> Reply {
        let mut req = self.client.request(method, format!("{}{}", self.admin, path)).bearer_auth(ADMIN_TOKEN);
        if let Some(b) = body {
            req = req.json(b);
        }
        read(req).await
    }

    /// Creates an organization; returns its id.
    pub async fn create_org(&self, body: Value) -> String {
        let r = self.admin(Method::POST, "/admin/orgs", Some(&body)).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        r.json()["id"].as_str().unwrap().to_string()
    }

    /// Creates a token with these permissions; returns its text.
    pub async fn create_token(&self, org: &str, permissions: &[&str]) -> String {
        self.create_token_with(org, json!({ "name": "test", "permissions": permissions })).await.1
    }

    /// Creates a token from a full body; returns (id, text).
    pub async fn create_token_with(&self, org: &str, body: Value) -> (String, String) {
        let r = self.admin(Method::POST, &format!("/admin/orgs/{org}/tokens"), Some(&body)).await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.text);
        let v = r.json();
        (v["id"].as_str().unwrap().to_string(), v["token"].as_str().unwrap().to_string())
    }

    /// 1,020 contacts of about 12 KB in `org` (plan `unlimited`): a page of
    /// 1,000 of them is about 12 MB, more than the kernel's socket buffers
    /// hold between the two ends, so its answer stays in the host until read.
    pub async fn big_contacts(&self, org: &str) {
        for batch in 0..17 {
            let rows: Vec<Value> = (batch * 60..(batch + 1) * 60)
                .map(|i| {
                    let mut row = json!({ "email": format!("big{i}@x.co"), "firstName": "N".repeat(400), "lastName": "L".repeat(400) });
                    for k in 0..45 {
                        row[format!("p{k}")] = json!(format!("v{k:02}").repeat(70));
                    }
                    row
                })
                .collect();
            let r = self
                .admin(Method::POST, &format!("/admin/orgs/{org}/contacts/bulk"), Some(&json!({ "rows": rows })))
                .await;
            assert_eq!(r.status, StatusCode::OK, "{}", r.text);
        }
    }

    /// A new organization (plan `pro` unless the body says) and a `*` token for it.
    pub async fn org_with_token(&self, body: Value) -> (String, String) {
        let org = self.create_org(body).await;
        let token = self.create_token(&org, &["*"]).await;
        (org, token)
    }

    /// The total a list of contacts with `query` shows.
    pub async fn contacts_total(&self, token: &str, query: &str) -> u64 {
        let r = self.get(&format!("/api/contacts?limit=1&{query}"), token).await;
        assert_eq!(r.status, StatusCode::OK, "{query}: {}", r.text);
        r.json()["pagination"]["total"].as_u64().unwrap()
    }

    /// `writers` tasks creating contacts back to back (writer `w`'s `i`th
    /// body is `body(w, i)`) until the host goes: for a host killed under
    /// writes. The id of each acknowledged create is pushed to `acked`;
    /// any answer but 201 fails the test.
    pub fn create_until_gone(
        &self,
        token: &str,
        writers: usize,
        body: impl Fn(usize, usize) -> Value + Send + Sync + 'static,
        acked: &Arc<Mutex<Vec<String>>>,
    ) -> Vec<tokio::task::JoinHandle<()>> {
        let body = Arc::new(body);
        (0..writers)
            .map(|w| {
                let (client, url, token) =
                    (self.client.clone(), format!("{}/api/contacts", self.api), token.to_string());
                let (body, acked) = (body.clone(), acked.clone());
                tokio::spawn(async move {
                    for i in 0.. {
                        let Ok(answer) = client.post(&url).bearer_auth(&token).json(&body(w, i)).send().await else {
                            return; // the host went
                        };
                        let status = answer.status();
                        let Ok(text) = answer.text().await else { return };
                        assert_eq!(status, StatusCode::CREATED, "a create answered: {text}");
                        let created: Value = serde_json::from_str(&text).unwrap();
                        acked.lock().unwrap().push(created["data"]["id"].as_str().unwrap().to_string());
                    }
                })
            })
            .collect()
    }
}

/// Waits, when less than 10 s of the current minute are left, for the next
/// one: limits counted per minute (the public form rate on a shared store)
/// start afresh at a minute's turn.
pub async fn well_inside_a_minute() {
    let second = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() % 60;
    if second > 50 {
        tokio::time::sleep(Duration::from_secs(61 - second)).await;
    }
}

/// Sends a JSON POST's head to `listener` (`http://host:port`) declaring
/// `length` bytes of body, and none of it, with `headers` (each ending in
/// `\r\n`); returns the start of what the host answers, read within 10 s.
pub fn post_head_only(listener: &str, path: &str, headers: &str, length: usize) -> String {
    use std::io::{Read, Write};
    let mut socket = std::net::TcpStream::connect(listener.trim_start_matches("http://")).unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\n{headers}Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    );
    socket.write_all(head.as_bytes()).unwrap();
    socket.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut answer = vec![0u8; 4096];
    let n = socket.read(&mut answer).unwrap();
    String::from_utf8_lossy(&answer[..n]).into_owned()
}

/// Reads a 200's head from `s`, a byte at a time; its `Content-Length`.
pub fn answer_head(s: &mut std::net::TcpStream) -> usize {
    use std::io::Read;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    let length = head.lines().find_map(|l| l.strip_prefix("content-length: ")).expect("a Content-Length");
    length.trim().parse().unwrap()
}

async fn read(req: reqwest::RequestBuilder) -> Reply {
    let r = req.send().await.expect("request sent");
    let status = r.status();
    let headers = r.headers().clone();
    let text = r.text().await.expect("body read");
    Reply { status, headers, text }
}

impl Drop for Host {
    fn drop(&mut self) {
        self.kill9();
    }
}
