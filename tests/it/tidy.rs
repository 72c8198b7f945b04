//! The architecture's claims, checked (rust-analyzer's "tidy" tests): what
//! `ARCHITECTURE.md` says of the crates' dependencies and modules holds, or
//! this fails naming what broke it.
//!
//! - inside every crate of both workspaces, no module uses one that uses it
//!   back (siblings under one parent, through `crate::`, `super::` or
//!   `self::` paths outside tests);
//! - the server links none of its command-line clients' crates;
//! - the store crates know no HTTP and no Wasm, the runtime knows no HTTP
//!   server, the pure libraries no I/O;
//! - only the crates ARCHITECTURE names open sockets;
//! - each crate is described once, in its own `//!`: ARCHITECTURE's code map
//!   points there, and no manifest has a `description`;
//! - the dependency rule names every crate of both workspaces, each depends
//!   only on crates left of it, and no crate the `crm-host` binary links is
//!   one of those kept for tests (the store's test kit, hostile text, the
//!   tests and benchmarks themselves), and no crate but the tests' and the
//!   benchmarks' depends on the store's test kit other than for its tests
//!   ([`dependencies`]);
//! - the guides name only files, folders and code that exist, and link only
//!   to files and headings that do ([`docs`]);
//! - no function outside tests is longer than a screen ([`lengths`]).

mod dependencies;
mod docs;
mod lengths;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// `cargo metadata` of the workspace whose manifest is `manifest`.
fn metadata(manifest: &Path, no_deps: bool) -> Value {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["metadata", "--format-version", "1", "--locked", "--manifest-path"]).arg(manifest);
    if no_deps {
        cmd.arg("--no-deps");
    }
    let out = cmd.output().expect("cargo metadata");
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON")
}

/// Every crate of both workspaces: its name and its `src/` folder.
fn workspace_crates() -> Vec<(String, PathBuf)> {
    let mut crates = Vec::new();
    for manifest in [root().join("Cargo.toml"), root().join("plugins/Cargo.toml")] {
        let meta = metadata(&manifest, true);
        for package in meta["packages"].as_array().unwrap() {
            let manifest_path = PathBuf::from(package["manifest_path"].as_str().unwrap());
            let src = manifest_path.parent().unwrap().join("src");
            if src.is_dir() {
                crates.push((package["name"].as_str().unwrap().to_string(), src));
            }
        }
    }
    crates
}

/// A module's path inside its crate (`["http", "extract"]`), from its file.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The code of a file without its comment lines (docs name paths in links)
/// and its `#[cfg(test)]` modules. A line is cut at no `//` inside it: that
/// may be a URL in a string, and the code after it would go unread.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod ") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines().filter(|line| !line.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// Every path the code names from `crate::`, `super::` or `self::`, with
/// `use` groups (`use crate::{a, b::{c, d}}`) spelled out, made absolute
/// from `module`.
fn named_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_' || chars[i - 1] == ':');
        let rest: String = chars[i..chars.len().min(i + 7)].iter().collect();
        let anchor = ["crate::", "super::", "self::"].into_iter().find(|a| rest.starts_with(a));
        match anchor {
            Some(anchor) if starts_word => {
                let base: Vec<String> = match anchor {
                    "crate::" => Vec::new(),
                    "super::" => module[..module.len().saturating_sub(1)].to_vec(),
                    _ => module.to_vec(),
                };
                let (paths, next) = use_tree(&chars, i + anchor.len(), base);
                found.extend(paths);
                i = next;
            }
            _ => i += 1,
        }
    }
    found
}

/// Reads a path or a `{...}` group at `at`, prefixed with `base`.
fn use_tree(chars: &[char], mut at: usize, mut base: Vec<String>) -> (Vec<Vec<String>>, usize) {
    loop {
        while at < chars.len() && chars[at].is_whitespace() {
            at += 1;
        }
        if at < chars.len() && chars[at] == '{' {
            let mut paths = Vec::new();
            at += 1;
            loop {
                let (inner, next) = use_tree(chars, at, base.clone());
                paths.extend(inner);
                at = next;
                while at < chars.len() && (chars[at].is_whitespace() || chars[at] == ',') {
                    at += 1;
                }
                if at >= chars.len() || chars[at] == '}' {
                    return (paths, at + 1);
                }
            }
        }
        let start = at;
        while at < chars.len() && (chars[at].is_alphanumeric() || chars[at] == '_') {
            at += 1;
        }
        let segment: String = chars[start..at].iter().collect();
        match segment.as_str() {
            "" => return (vec![base], at),
            "super" => {
                base.pop();
            }
            "self" => {}
            _ => base.push(segment),
        }
        if chars[at..].starts_with(&[':', ':']) {
            at += 2;
        } else {
            return (vec![base], at);
        }
    }
}

/// For each parent module, which child uses which sibling.
type SiblingEdges = BTreeMap<Vec<String>, BTreeSet<(String, String)>>;

fn sibling_edges(src: &Path) -> SiblingEdges {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_path(src, f)).collect();
    let mut edges = SiblingEdges::new();
    for file in &files {
        let from = module_path(src, file);
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for mut to in named_paths(&code, &from) {
            // The module the path reaches: its longest prefix that is a module.
            while !to.is_empty() && !modules.contains(&to) {
                to.pop();
            }
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            // A module using itself, an ancestor or a descendant is no sibling's business.
            if common == from.len() || common == to.len() {
                continue;
            }
            edges.entry(from[..common].to_vec()).or_default().insert((from[common].clone(), to[common].clone()));
        }
    }
    edges
}

/// A circle among `edges`, as the modules along it, if there is one.
fn find_circle(edges: &BTreeSet<(String, String)>) -> Option<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges {
        next.entry(a).or_default().push(b);
    }
    fn walk<'a>(
        at: &'a str,
        next: &BTreeMap<&'a str, Vec<&'a str>>,
        path: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|m| *m == at) {
            let mut circle: Vec<String> = path[start..].iter().map(|m| m.to_string()).collect();
            circle.push(at.to_string());
            return Some(circle);
        }
        if !done.insert(at) {
            return None;
        }
        path.push(at);
        for to in next.get(at).into_iter().flatten() {
            if let Some(circle) = walk(to, next, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    next.keys().find_map(|start| walk(start, &next, &mut Vec::new(), &mut done))
}

#[test]
fn no_module_uses_one_that_uses_it_back() {
    let mut circles = Vec::new();
    for (name, src) in workspace_crates() {
        for (parent, edges) in sibling_edges(&src) {
            if let Some(circle) = find_circle(&edges) {
                let prefix = if parent.is_empty() { String::new() } else { format!("{}::", parent.join("::")) };
                let named: Vec<String> = circle.iter().map(|m| format!("{prefix}{m}")).collect();
                circles.push(format!("{name}: {}", named.join(" → ")));
            }
        }
    }
    assert!(circles.is_empty(), "modules that use each other:\n{}", circles.join("\n"));
}

/// Every crate `package` depends on, directly or not, through normal
/// dependencies (not dev or build ones).
fn dependencies_of(meta: &Value, package: &str) -> BTreeSet<String> {
    let id_of =
        |name: &str| meta["packages"].as_array().unwrap().iter().find(|p| p["name"] == name).map(|p| p["id"].clone());
    let nodes: BTreeMap<String, &Value> = meta["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap().to_string(), n))
        .collect();
    let name_of = |id: &str| id_name(meta, id);
    let mut seen = BTreeSet::new();
    let mut todo = vec![id_of(package).unwrap_or_else(|| panic!("no crate {package}")).as_str().unwrap().to_string()];
    while let Some(id) = todo.pop() {
        for dep in nodes[&id]["deps"].as_array().unwrap() {
            let normal = dep["dep_kinds"].as_array().unwrap().iter().any(|k| k["kind"].is_null());
            let dep_id = dep["pkg"].as_str().unwrap().to_string();
            if normal && seen.insert(name_of(&dep_id)) {
                todo.push(dep_id);
            }
        }
    }
    seen
}

fn id_name(meta: &Value, id: &str) -> String {
    meta["packages"].as_array().unwrap().iter().find(|p| p["id"] == id).unwrap()["name"].as_str().unwrap().to_string()
}

#[test]
fn each_crate_knows_only_what_architecture_lets_it() {
    let meta = metadata(&root().join("Cargo.toml"), false);
    let http_server = ["warp"];
    let http_any = ["warp", "hyper", "reqwest"];
    let wasm = ["wasmtime", "wasmtime-wasi"];
    let io = ["tokio", "sled", "reqwest", "hyper"];
    let rules: &[(&str, &[&[&str]])] = &[
        ("crm-store", &[&http_any, &wasm]),
        ("crm-store-postgres", &[&http_any, &wasm]),
        ("crm-tenancy", &[&http_any, &wasm]),
        ("crm-events", &[&http_server, &wasm]),
        ("crm-runtime", &[&http_server]),
        ("crm-contract", &[&io, &http_any, &wasm]),
        ("crm-catalog", &[&io, &http_any, &wasm]),
        ("crm-paging", &[&io, &http_any, &wasm]),
        ("crm-text-decoding", &[&io, &http_any, &wasm]),
        ("crm-hostile-text", &[&io, &http_any, &wasm]),
        ("crm-store-testkit", &[&http_any, &wasm]),
        // The server links none of its command-line clients' crates.
        ("crm-server", &[&["indicatif"]]),
    ];
    let mut broken = Vec::new();
    for (package, forbidden) in rules {
        let deps = dependencies_of(&meta, package);
        for name in forbidden.iter().flat_map(|f| f.iter()) {
            if deps.contains(*name) {
                broken.push(format!("{package} depends on {name}"));
            }
        }
    }
    assert!(broken.is_empty(), "ARCHITECTURE.md's dependency rules broken:\n{}", broken.join("\n"));
}

/// The crates that open sockets, as ARCHITECTURE.md names them: the server
/// (its listeners, the providers' HTTP), outbound events (webhooks), the
/// PostgreSQL store (the database), the command line's clients, and the
/// tests and benchmarks with the store's test kit (a free port for a
/// throw-away PostgreSQL). Any other crate's code that names a socket fails.
const MAY_OPEN_SOCKETS: &[&str] =
    &["crm-server", "crm-host", "crm-events", "crm-store-postgres", "crm-store-testkit", "crm-tests", "crm-load"];

#[test]
fn only_the_crates_architecture_names_open_sockets() {
    let markers = ["TcpStream", "TcpListener", "UdpSocket", "UnixStream", "reqwest::", "tokio_postgres::connect"];
    let mut opened = Vec::new();
    for (name, src) in workspace_crates() {
        if MAY_OPEN_SOCKETS.contains(&name.as_str()) {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for file in files {
            let code = code_of(&std::fs::read_to_string(&file).unwrap());
            for marker in markers {
                if code.contains(marker) {
                    opened.push(format!("{name}: {} names {marker}", file.strip_prefix(root()).unwrap().display()));
                }
            }
        }
    }
    assert!(opened.is_empty(), "sockets outside the crates ARCHITECTURE.md names:\n{}", opened.join("\n"));
}

#[test]
fn the_circle_finder_finds_a_circle_and_spells_use_groups_out() {
    let module = vec!["http".to_string(), "extract".to_string()];
    let paths = named_paths("use crate::{listener::{Peer, Protocol}, tls};\nlet x = super::body::read();", &module);
    let spelled: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(spelled, ["listener::Peer", "listener::Protocol", "tls", "http::body::read"]);
    let code = code_of("/// [`crate::docs`]\nlet url = \"https://x.co\"; crate::after::url();\n");
    assert_eq!(named_paths(&code, &module), [vec!["after".to_string(), "url".to_string()]], "{code}");
    let edges: BTreeSet<(String, String)> =
        [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")].iter().map(|(x, y)| (x.to_string(), y.to_string())).collect();
    assert_eq!(find_circle(&edges), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    let acyclic: BTreeSet<(String, String)> = edges.into_iter().filter(|(x, y)| !(x == "c" && y == "a")).collect();
    assert_eq!(find_circle(&acyclic), None);
}

/// A crate's root file: `lib.rs`, else `main.rs`.
fn root_file(src: &Path) -> PathBuf {
    let lib = src.join("lib.rs");
    if lib.is_file() { lib } else { src.join("main.rs") }
}

/// Each crate is described once, in its root file's `//!`: the code map
/// points there (a row naming the folder, the crate and that file, no prose
/// of its own), and no manifest carries a `description` to drift from it.
#[test]
fn each_crate_is_described_once_in_its_own_doc() {
    let architecture = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let map = &architecture[architecture.find("## Code map").expect("a code map")..];
    let map = &map[..map.find("\n## ").map_or(map.len(), |end| end + 1)];
    let mut wrong = Vec::new();
    for (name, src) in workspace_crates() {
        let folder = src.parent().unwrap().strip_prefix(root()).unwrap().to_str().unwrap().to_string();
        let file = root_file(&src);
        let file_name = file.strip_prefix(root()).unwrap().to_str().unwrap().to_string();
        let row = format!("| `{folder}/` | `{name}` | [`{file_name}`]({file_name}) |");
        if !map.lines().any(|line| line.starts_with(&row)) {
            wrong.push(format!("the code map has no row `{row}`"));
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let described = text.lines().take_while(|line| line.starts_with("//!")).count();
        if described < 2 {
            wrong.push(format!("{file_name} does not open with its crate's `//!` description"));
        }
    }
    for manifest in [root().join("Cargo.toml"), root().join("plugins/Cargo.toml")] {
        for package in metadata(&manifest, true)["packages"].as_array().unwrap() {
            if !package["description"].is_null() {
                wrong.push(format!("{}'s Cargo.toml has a description: its `//!` is the one", package["name"]));
            }
        }
    }
    let prose = map.lines().filter(|line| !line.is_empty() && !line.starts_with('|')).count();
    if prose > 12 {
        wrong.push(format!("the code map has {prose} lines besides its table: a crate's description is its `//!`"));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
