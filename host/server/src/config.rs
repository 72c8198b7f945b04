//! `crm-host serve` configuration: every flag is also read from its environment
//! variable (`docs/operators.md`'s configuration table is made from
//! them: `config_table` below).

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;
use clap::builder::BoolishValueParser;

/// `crm-host serve`'s flags, one group per concern (each a heading of
/// `--help` and a table of the operators guide).
#[derive(Debug, Clone, Args)]
pub struct Config {
    #[command(flatten)]
    pub listeners: Listeners,
    #[command(flatten)]
    pub store: StoreConfig,
    #[command(flatten)]
    pub edge: EdgeConfig,
    #[command(flatten)]
    pub limits: Limits,
    #[command(flatten)]
    pub components: Components,
    #[command(flatten)]
    pub jobs: Jobs,
}

/// The listeners: addresses, TLS, and what a connection and its request may hold.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Listeners")]
pub struct Listeners {
    /// Address of the public API (`/api`, `/webhooks`, `/healthz`, `/readyz`). Port 0 picks a free port.
    #[arg(long, env = "CRM_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// The public listener's certificate chain (PEM, leaf first, as certbot's
    /// `fullchain.pem`): with `--tls-key`, the API is served over TLS only
    /// (HTTP/2 and HTTP/1.1). A renewed file is served without a restart.
    ///
    /// Default: none, plain HTTP. A renewed pair is served within 5 s; a pair
    /// that does not load leaves the previous one in service (at start it
    /// stops the host). The admin listener stays plain unless `--admin-tls`.
    #[arg(long, env = "CRM_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// The private key of `--tls-cert` (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, env = "CRM_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// Address of the admin API (keep it private: `/metrics` needs no token).
    #[arg(long, env = "CRM_ADMIN_LISTEN", default_value = "127.0.0.1:8081")]
    pub admin_listen: SocketAddr,

    /// Serve the admin API over TLS too, with the same `--tls-cert` and
    /// `--tls-key`: for an admin listener the app reaches across a network.
    #[arg(long, env = "CRM_ADMIN_TLS", default_value = "false", requires = "tls_cert", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub admin_tls: bool,

    /// Most connections the public listener holds at once (clamped 1,024 below
    /// the open-files limit, which is raised to its hard limit at start); past
    /// it new ones wait in the kernel's backlog.
    #[arg(long, env = "CRM_MAX_CONNECTIONS", default_value_t = 10_000)]
    pub max_connections: usize,

    /// How long a connection may take to send a request's headers, and so how
    /// long a kept-alive connection may stay idle, in milliseconds.
    #[arg(long, env = "CRM_HEADER_TIMEOUT_MS", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout_ms: u64,

    /// How long a request's body may take to arrive, in milliseconds (408
    /// `REQUEST_TIMEOUT` past it).
    #[arg(long, env = "CRM_BODY_TIMEOUT_MS", default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub body_timeout_ms: u64,

    /// Largest request body accepted, in bytes (larger ones get 413
    /// `PAYLOAD_TOO_LARGE`), unless the route sets its own (an import: 16 MiB).
    #[arg(long, env = "CRM_MAX_BODY_BYTES", default_value_t = 1 << 20)]
    pub max_body_bytes: usize,

    /// Most request body bytes the public listener holds at once, in MiB (at
    /// least `--max-body-bytes`; a route's own larger limit is held to it):
    /// past it a body is refused with 503 `SERVER_BUSY` and `Retry-After: 1`.
    #[arg(long, env = "CRM_MAX_BODY_MEMORY_MB", default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub max_body_memory_mb: u64,

    /// After SIGTERM, how long in-flight requests may run before they are
    /// abandoned (the store is flushed either way), in milliseconds.
    #[arg(long, env = "CRM_SHUTDOWN_GRACE_MS", default_value_t = 10_000)]
    pub shutdown_grace_ms: u64,

    /// Proxies whose `X-Forwarded-For` names the client of a public form
    /// submit: comma-separated IP addresses or networks (`10.0.0.0/8`, as a
    /// cloud load balancer's addresses change within its subnet); the client
    /// is the last hop that is not one of them. Default: none, the peer is
    /// the client.
    #[arg(long, env = "CRM_TRUST_FORWARDED_FOR", default_value = "", value_parser = crate::http::forwarded::TrustedProxies::parse)]
    pub trust_forwarded_for: crate::http::forwarded::TrustedProxies,
}

/// Where the data lives: the data dir, the embedded engine or a PostgreSQL database, and how commits are made.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Store")]
pub struct StoreConfig {
    /// Where the store and the generated admin token live (with `--store-url`:
    /// only the host's name, the component cache and the admin token).
    #[arg(long, env = "CRM_DATA_DIR", default_value = "./data")]
    pub data_dir: PathBuf,

    /// The store on a PostgreSQL-protocol database (`postgres://user:password@host:port/db`:
    /// PostgreSQL, YugabyteDB, CockroachDB), shared by every host pointed at it. Unset:
    /// the embedded store in the data dir.
    ///
    /// TLS to the database is read from the URL's `sslmode` and `sslrootcert`,
    /// as libpq reads them (`docs/operators.md`, "Running several hosts").
    #[arg(long, env = "CRM_STORE_URL", hide_env_values = true)]
    pub store_url: Option<String>,

    /// Most database connections this host opens (with `--store-url`).
    #[arg(long, env = "CRM_STORE_CONNECTIONS", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub store_connections: u64,

    /// The embedded engine: `fjall` (the default: an LSM tree, compressed,
    /// online backups) or `sled`. A data dir sled wrote is moved to fjall at
    /// start, while the host serves it, unless this says `sled`; a data dir
    /// on fjall stays there (naming `sled` for it is refused: `crm-host store
    /// copy` moves a store between engines).
    #[arg(long, env = "CRM_STORE_ENGINE", value_parser = clap::value_parser!(crm_store::embedded::Engine))]
    pub store_engine: Option<crm_store::embedded::Engine>,

    /// The embedded store's cache, in MiB: most of the host's memory on a
    /// large store; reads past it go to disk. Unset: 256 on fjall, 1024
    /// (sled's own default) on sled (`docs/operators.md`, "Memory").
    #[arg(long, env = "CRM_STORE_CACHE_MB", value_parser = clap::value_parser!(u64).range(16..=1_048_576))]
    pub store_cache_mb: Option<u64>,

    /// How long the store's combined commit waits for more writers
    /// while at least 8 requests are computing, in microseconds; 0 commits at
    /// once. One commit (and the flush after it) then serves many writers
    /// instead of one or two.
    #[arg(long, env = "CRM_COMMIT_WINDOW_US", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(0..=20_000))]
    pub commit_window_us: u64,

    /// How long an online backup nobody reads is kept, in seconds: its
    /// snapshot keeps old versions from being compacted away, so one a
    /// client left is given up (another may then start).
    #[arg(long, env = "CRM_BACKUP_IDLE_SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub backup_idle_secs: u64,
}

/// An edge host: the standby it reads, how stale a read may be, where its writes go.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Edge hosts")]
pub struct EdgeConfig {
    /// An edge host's read-only replica of the `--store-url` database: a
    /// PostgreSQL hot standby beside this host (same URL form and TLS rules).
    /// Reads are served from it while it is at most `--max-staleness-ms`
    /// behind; writes go to the primary, or to `--write-host-url`
    /// (`docs/operators.md`, "Hosts near your customers").
    #[arg(long, env = "CRM_STORE_READ_URL", hide_env_values = true, requires = "store_url")]
    pub store_read_url: Option<String>,

    /// How far behind its primary the replica may be and still be read
    /// (with `--store-read-url`); further behind, reads go to the primary
    /// while it is reachable.
    #[arg(long, env = "CRM_MAX_STALENESS_MS", default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub max_staleness_ms: u64,

    /// Hosts beside the primary database that an edge host (with
    /// `--store-read-url`) forwards its writes to, so that a write crosses
    /// the WAN once (`https://host:port`, their public listeners), comma
    /// separated: tried in order, one that does not answer skipped for a
    /// while. Unset: the edge host writes to the primary itself, a WAN
    /// round trip a statement. Plain `http://` only to a loopback address,
    /// unless `--allow-insecure-write-host`: forwards carry bearer tokens.
    #[arg(long, env = "CRM_WRITE_HOST_URL", requires = "store_read_url", value_parser = parse_write_host, value_delimiter = ',')]
    pub write_host_url: Vec<reqwest::Url>,

    /// Forward writes to an `http://` write host that is not on loopback:
    /// the operator says the link is private (a VPN, a private network),
    /// since the requests carry bearer tokens in clear text.
    #[arg(long, env = "CRM_ALLOW_INSECURE_WRITE_HOST", default_value = "false", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub allow_insecure_write_host: bool,
}

/// What one organization, token or client address may use of the host.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Limits and fairness")]
pub struct Limits {
    /// Refuse API calls of organizations whose plan lacks the `api` module.
    #[arg(long, env = "CRM_ENFORCE_API_MODULE", default_value = "true", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub enforce_api_module: bool,

    /// Most API requests of one organization in flight at once, each until its
    /// answer is written; the next ones wait in a queue as long for
    /// `--org-queue-ms`, then get 429 `RATE_LIMITED`.
    #[arg(long, env = "CRM_ORG_MAX_IN_FLIGHT", default_value_t = 128, value_parser = clap::value_parser!(u64).range(1..))]
    pub org_max_in_flight: u64,

    /// How long a request may wait for one of its organization's slots, in milliseconds.
    #[arg(long, env = "CRM_ORG_QUEUE_MS", default_value_t = 250)]
    pub org_queue_ms: u64,

    /// How many requests compute at once (a component call, a catalog match),
    /// handed out in turn between organizations (see `crm_runtime::turns`); 0
    /// picks from the cores and the store: a remote store's round trips keep
    /// calls waiting, not computing.
    ///
    /// 0 is two per core on the embedded store, 64 per core with `--store-url`.
    /// A request waiting for a turn yields to the organizations waiting in
    /// turn, one request each, so a quiet organization's request goes ahead
    /// of a flooding one's queue. A call waiting on a shipping provider gives
    /// its turn back meanwhile, and a long one (an import) passes it on at
    /// every 10 ms tick while another request waits.
    #[arg(long, env = "CRM_COMPUTE_TURNS", default_value_t = 0)]
    pub compute_turns: usize,

    /// Requests per second each token may make (burst: twice that); 0 is no
    /// quota. Past it: 429 `RATE_LIMITED` with `RateLimit-Limit`,
    /// `RateLimit-Remaining` and `RateLimit-Reset`.
    #[arg(long, env = "CRM_RATE_PER_SECOND", default_value_t = 0)]
    pub rate_per_second: u32,

    /// Public form submits each client address (an IPv6 client: its /64)
    /// may make to one form per minute (429 past it); 0 turns the limit off.
    /// On a shared store (`--store-url`) it is counted per calendar minute in
    /// the database, across every host.
    #[arg(long, env = "CRM_FORM_RATE_PER_MINUTE", default_value_t = 60)]
    pub form_rate_per_minute: u32,
}

/// The Wasm components: where extra ones and the compiled cache are, and what one call may use.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Components")]
pub struct Components {
    /// A folder of extra Wasm components (added, or replacing a first-party one by name).
    ///
    /// Default: none. `POST /admin/plugins/reload` loads it again without a restart.
    #[arg(long, env = "CRM_PLUGINS_DIR")]
    pub plugins_dir: Option<PathBuf>,

    /// Where compiled components are cached (default: `<data-dir>/cache`). Safe to
    /// share between hosts of one build: entries are keyed by content and engine.
    #[arg(long, env = "CRM_CACHE_DIR")]
    pub cache_dir: Option<PathBuf>,

    /// How long one component call may run, unless its route declares otherwise.
    #[arg(long, env = "CRM_COMPONENT_DEADLINE_MS", default_value_t = 5000)]
    pub component_deadline_ms: u64,

    /// Largest linear memory of one component instance, in MiB. At least 8:
    /// the modules start with 4 MiB (see `plugins/.cargo/config.toml`).
    #[arg(long, env = "CRM_COMPONENT_MEMORY_MB", default_value_t = 64, value_parser = clap::value_parser!(u64).range(8..=4096))]
    pub component_memory_mb: u64,
}

/// Calls the host makes out (providers, webhooks) and the jobs it runs on its own.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Outbound calls and background jobs")]
pub struct Jobs {
    /// How long one provider call (a label, a quote, a cancel) may take before
    /// its outcome counts as unknown (a label: 409 `SHIPMENT_NEEDS_REVIEW`).
    /// At most 55000: the shipments routes run 60 s.
    #[arg(long, env = "CRM_PROVIDER_TIMEOUT_MS", default_value_t = 25_000, value_parser = clap::value_parser!(u64).range(1..=55_000))]
    pub provider_timeout_ms: u64,

    /// Let the host's own HTTP clients (providers' requests, forwards to a
    /// write host) go through the proxy `HTTPS_PROXY`, `HTTP_PROXY` and
    /// `NO_PROXY` name. Default: those variables are ignored, so a variable
    /// set for another program never routes tokens through a proxy.
    /// Webhook deliveries never use a proxy.
    #[arg(long, env = "CRM_HTTP_PROXY_FROM_ENV", default_value = "false", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub http_proxy_from_env: bool,

    /// Let webhooks go to private addresses and plain http (tests, private
    /// deployments); off, only `https` URLs to addresses that are all public
    /// are allowed (400 `WEBHOOK_URL_NOT_ALLOWED`).
    #[arg(long, env = "CRM_WEBHOOK_ALLOW_PRIVATE", default_value = "false", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub webhook_allow_private: bool,

    /// Disable a webhook endpoint after every attempt to it has failed for
    /// this long (5 days, as Svix): its deliveries are held until it is
    /// enabled again. Tests shorten it.
    #[arg(long, env = "CRM_WEBHOOK_DISABLE_AFTER_SECS", default_value_t = 432_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub webhook_disable_after_secs: u64,

    /// How often the scheduler refreshes the tracking of shipments not yet final; 0 turns it off.
    #[arg(long, env = "CRM_TRACKING_REFRESH_MS", default_value_t = 300_000)]
    pub tracking_refresh_ms: u64,

    /// Most shipments of one organization the scheduler refreshes per round.
    #[arg(long, env = "CRM_TRACKING_REFRESH_BATCH", default_value_t = 50)]
    pub tracking_refresh_batch: u32,

    /// Time between folds of the search index's log into its trigram lists,
    /// in milliseconds: contacts written since the last fold are searched in
    /// the log, a scan of their projections. 0: never (tests of the log).
    #[arg(long, env = "CRM_SEARCH_FOLD_MS", default_value_t = 200, value_parser = clap::value_parser!(u64).range(0..=60_000))]
    pub search_fold_ms: u64,

    /// Rewrite, in the background at start, the search index of every
    /// organization whose index an earlier version wrote (the contacts
    /// module's reindex; instant where the index is current).
    #[arg(long, env = "CRM_REINDEX_AT_START", default_value = "true", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set)]
    pub reindex_at_start: bool,
}

/// Whether `url` names this machine (`localhost`, `127.0.0.0/8`, `::1`).
fn is_loopback(url: &reqwest::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// `--write-host-url`: an `http` or `https` URL of a host's public listener.
fn parse_write_host(text: &str) -> Result<reqwest::Url, String> {
    let url = reqwest::Url::parse(text).map_err(|e| format!("not a URL: {e}"))?;
    match (url.scheme(), url.host_str(), url.path()) {
        ("http" | "https", Some(_), "/" | "") => Ok(url),
        (_, _, "/" | "") => Err("the write host is reached over http or https".into()),
        _ => Err("the write host's URL names the host only, without a path".into()),
    }
}

impl Config {
    /// What no flag's parser can say alone: an `http://` write host off
    /// loopback without `--allow-insecure-write-host`.
    pub fn check(&self) -> Result<(), String> {
        for url in &self.edge.write_host_url {
            if url.scheme() == "http" && !self.edge.allow_insecure_write_host && !is_loopback(url) {
                return Err(format!(
                    "--write-host-url {url} would send bearer tokens in clear text: use https, \
                     or --allow-insecure-write-host if the link is private"
                ));
            }
        }
        Ok(())
    }

    /// Where compiled components are cached.
    pub fn cache_dir(&self) -> PathBuf {
        self.components.cache_dir.clone().unwrap_or_else(|| self.store.data_dir.join("cache"))
    }

    /// `--compute-turns`, or when 0: two per core on the embedded store (a
    /// call holding a turn barely waits), 64 per core on a database (each
    /// store call a round trip, waited for on the turn).
    pub fn compute_turns(&self) -> usize {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        match (self.limits.compute_turns, &self.store.store_url) {
            (0, None) => 2 * cores,
            (0, Some(_)) => 64 * cores,
            (turns, _) => turns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_host_is_an_http_url_without_a_path() {
        assert!(parse_write_host("http://10.0.0.5:8080").is_ok());
        assert!(parse_write_host("https://primary.example.co/").is_ok());
        for wrong in ["10.0.0.5:8080", "ftp://h", "http://h/api", "nonsense"] {
            assert!(parse_write_host(wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn a_plain_http_write_host_off_loopback_needs_the_operator_s_word() {
        let config = |args: &[&str]| {
            let command = Config::augment_args(clap::Command::new("serve").no_binary_name(true));
            let matches = command.try_get_matches_from(args).unwrap();
            <Config as clap::FromArgMatches>::from_arg_matches(&matches).unwrap()
        };
        let edge = ["--store-url", "postgres://db/crm", "--store-read-url", "postgres://replica/crm"];
        let with = |more: &[&str]| config(&[&edge[..], more].concat());
        assert!(with(&["--write-host-url", "https://write.example.co"]).check().is_ok());
        assert!(
            with(&["--write-host-url", "http://127.0.0.1:8080,http://[::1]:8080,http://localhost:9"]).check().is_ok()
        );
        let refused = with(&["--write-host-url", "https://a.example.co,http://10.0.0.5:8080"]).check().unwrap_err();
        assert!(
            refused.contains("http://10.0.0.5:8080/") && refused.contains("--allow-insecure-write-host"),
            "{refused}"
        );
        let allowed = with(&["--write-host-url", "http://10.0.0.5:8080", "--allow-insecure-write-host", "true"]);
        assert!(allowed.check().is_ok());
        assert_eq!(with(&["--write-host-url", "https://a.co,https://b.co"]).edge.write_host_url.len(), 2);
    }

    /// What `crm-host` reads from the environment alone, beside its flags.
    const ENVIRONMENT_ONLY: &[(&str, &str, &str)] = &[
        ("CRM_ADMIN_TOKEN", "generated", "the admin API's bearer token"),
        (
            "RUST_LOG",
            "`info`",
            "log filter; `info,crm_host::access=debug` adds a line for every request (route pattern, organization, status, latency, request id)",
        ),
        ("CRM_LOG_FORMAT", "text", "`json`: one JSON object a line"),
    ];

    /// Where the guide's table sits, between two markers.
    const GUIDE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/operators.md");
    const BEGIN: &str = "<!-- configuration table: made by `config_table` in host/server/src/config.rs -->\n";
    const END: &str = "<!-- end of the configuration table -->";

    /// The operators' tables of every flag, one a group, made from the flags
    /// themselves so that the two cannot differ.
    fn config_table() -> String {
        let command = Config::augment_args(clap::Command::new("serve"));
        let header =
            |heading: &str| format!("**{heading}**\n\n| flag | environment | default | meaning |\n|---|---|---|---|\n");
        let cell = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ").replace('|', "\\|");
        let mut table = String::new();
        let mut group = None;
        for arg in command.get_arguments() {
            let (Some(long), Some(env)) = (arg.get_long(), arg.get_env()) else { continue };
            if arg.get_help_heading() != group {
                group = arg.get_help_heading();
                let gap = if table.is_empty() { "" } else { "\n" };
                table += &format!("{gap}{}", header(group.unwrap_or("Other")));
            }
            let defaults: Vec<String> =
                arg.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
            let default = match defaults.join(",").as_str() {
                "" => "none".to_string(),
                value => format!("`{value}`"),
            };
            let help = arg.get_long_help().or(arg.get_help()).map(|h| h.to_string()).unwrap_or_default();
            table += &format!("| `--{long}` | `{}` | {default} | {} |\n", env.to_string_lossy(), cell(&help));
        }
        table += &format!("\n{}", header("Read from the environment only"));
        for (env, default, meaning) in ENVIRONMENT_ONLY {
            table += &format!("| | `{env}` | {default} | {meaning} |\n");
        }
        table
    }

    #[test]
    fn the_operators_guide_lists_every_flag_as_it_is() {
        let guide = std::fs::read_to_string(GUIDE).expect("docs/operators.md");
        let (head, rest) = guide.split_once(BEGIN).expect("the table's first marker");
        let (listed, tail) = rest.split_once(END).expect("the table's last marker");
        let table = config_table();
        if listed == table {
            return;
        }
        if std::env::var_os("CRM_WRITE_DOCS").is_some() {
            std::fs::write(GUIDE, format!("{head}{BEGIN}{table}{END}{tail}")).unwrap();
            return;
        }
        panic!(
            "docs/operators.md's configuration table differs from the flags; \
             CRM_WRITE_DOCS=1 cargo test -p crm-server the_operators_guide rewrites it. The flags say:\n{table}"
        );
    }
}
