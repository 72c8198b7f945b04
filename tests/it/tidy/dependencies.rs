//! The crates' dependencies as ARCHITECTURE.md's dependency rule states
//! them: the rule names every crate of both workspaces, each crate of its
//! chains depends only on crates left of it, and the crates kept for tests
//! (the store's test kit above all) are linked by no product crate.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{dependencies_of, id_name, metadata, root};

/// ARCHITECTURE.md's dependency rule: its paragraph, and the chains of
/// backticked crate names in it, each a list of layers (`a`, `b` ← `c`:
/// layers `[a, b]`, `[c]`).
fn dependency_rule() -> (String, Vec<Vec<Vec<String>>>) {
    let architecture = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let start = architecture.find("- **Dependencies point one way").expect("ARCHITECTURE.md's dependency rule");
    let rest = &architecture[start..];
    let end = rest[1..].find("\n- ").map_or(rest.len(), |n| n + 1);
    let paragraph = rest[..end].split_whitespace().collect::<Vec<_>>().join(" ");
    let mut chains = Vec::new();
    let mut chain: Vec<Vec<String>> = Vec::new();
    let mut rest = paragraph.as_str();
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else { break };
        let name = rest[open + 1..open + 1 + len].to_string();
        match rest[..open].trim() {
            "←" if !chain.is_empty() => chain.push(vec![name]),
            "," if !chain.is_empty() => chain.last_mut().unwrap().push(name),
            _ => {
                if chain.len() > 1 {
                    chains.push(std::mem::take(&mut chain));
                }
                chain = vec![vec![name]];
            }
        }
        rest = &rest[open + len + 2..];
    }
    if chain.len() > 1 {
        chains.push(chain);
    }
    (paragraph, chains)
}

/// The crates of a workspace (normal dependencies only), each with the
/// workspace crates of either workspace it depends on directly.
fn direct_dependencies(meta: &Value, ours: &BTreeSet<String>) -> BTreeMap<String, BTreeSet<String>> {
    let members: BTreeSet<&str> =
        meta["workspace_members"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    let mut found = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().unwrap() {
        let id = node["id"].as_str().unwrap();
        if !members.contains(id) {
            continue;
        }
        let deps = node["deps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["dep_kinds"].as_array().unwrap().iter().any(|k| k["kind"].is_null()))
            .map(|d| id_name(meta, d["pkg"].as_str().unwrap()))
            .filter(|name| ours.contains(name))
            .collect();
        found.insert(id_name(meta, id), deps);
    }
    found
}

/// Crates only tests and benchmarks may depend on, whatever the rule's text
/// says: the store's test kit starts PostgreSQL servers and unwraps, hostile
/// text is test data, and the tests and benchmarks are no library.
const KEPT_FOR_TESTS: &[&str] = &["crm-store-testkit", "crm-hostile-text", "crm-tests", "crm-load"];

/// The dependency rule holds: it names every crate of both workspaces; a
/// crate of a chain depends only on crates of the layers left of its own
/// (in `plugins/`, every crate the chain does not name is a component, in
/// a last layer of its own); and no crate `crm-host` links, `crm-host`
/// included, is a crate the rule keeps beside the chain (for tests and
/// benchmarks only).
#[test]
fn dependencies_point_the_way_architecture_says() {
    let (paragraph, chains) = dependency_rule();
    let host = metadata(&root().join("Cargo.toml"), false);
    let plugins = metadata(&root().join("plugins/Cargo.toml"), false);
    let ours: BTreeSet<String> = [&host, &plugins]
        .iter()
        .flat_map(|meta| {
            meta["workspace_members"].as_array().unwrap().iter().map(|id| id_name(meta, id.as_str().unwrap()))
        })
        .collect();
    let (host_deps, plugin_deps) = (direct_dependencies(&host, &ours), direct_dependencies(&plugins, &ours));
    let mut wrong = Vec::new();
    let [host_chain, plugin_chain] = chains.as_slice() else {
        panic!(
            "ARCHITECTURE.md's dependency rule has {} chains (`a` ← `b`), not two: the host's, then plugins'",
            chains.len()
        )
    };
    for name in host_deps.keys().filter(|name| !paragraph.contains(&format!("`{name}`"))) {
        wrong.push(format!("the dependency rule does not name `{name}`"));
    }
    let mut plugin_layers = plugin_chain.clone();
    let components: Vec<String> =
        plugin_deps.keys().filter(|n| !plugin_chain.iter().flatten().any(|c| c == *n)).cloned().collect();
    plugin_layers.push(components);
    for (layers, deps) in [(host_chain, &host_deps), (&plugin_layers, &plugin_deps)] {
        for (at, layer) in layers.iter().enumerate() {
            let left: BTreeSet<&String> = layers[..at].iter().flatten().collect();
            for name in layer {
                let Some(own) = deps.get(name).or_else(|| host_deps.get(name)) else {
                    wrong.push(format!("the dependency rule names `{name}`, which no workspace has"));
                    continue;
                };
                for dep in own.iter().filter(|dep| !left.contains(dep)) {
                    wrong.push(format!("`{name}` depends on `{dep}`, which the rule puts right of it or beside it"));
                }
            }
        }
    }
    for kept in KEPT_FOR_TESTS.iter().filter(|kept| host_chain.iter().flatten().any(|c| c == *kept)) {
        wrong.push(format!("the rule puts `{kept}` among the crates `crm-host` may link: it is kept for tests"));
    }
    let linked = dependencies_of(&host, "crm-host");
    for name in host_deps.keys().filter(|n| !host_chain.iter().flatten().any(|c| c == *n)) {
        if linked.contains(name) || name == "crm-host" {
            wrong.push(format!("`crm-host` links `{name}`, which is kept for tests and benchmarks"));
        }
    }
    assert!(wrong.is_empty(), "ARCHITECTURE.md's dependency rule:\n{}", wrong.join("\n"));
}

/// The crates that may depend on the store's test kit as a normal
/// dependency: the black-box tests' library and the benchmarks. Any other
/// crate may have it as a dev-dependency only, so that no crate a product
/// binary links starts PostgreSQL servers or carries the contract suite.
const MAY_USE_THE_KIT: &[&str] = &["crm-tests", "crm-load"];

#[test]
fn no_production_crate_depends_on_the_store_test_kit() {
    let meta = metadata(&root().join("Cargo.toml"), false);
    let members: BTreeSet<&str> =
        meta["workspace_members"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    let mut wrong = Vec::new();
    for node in meta["resolve"]["nodes"].as_array().unwrap() {
        let id = node["id"].as_str().unwrap();
        let name = id_name(&meta, id);
        if !members.contains(id) || MAY_USE_THE_KIT.contains(&name.as_str()) {
            continue;
        }
        for dep in node["deps"].as_array().unwrap() {
            // A normal or build dependency (`kind` null or "build"); "dev" is a test's.
            let kinds = dep["dep_kinds"].as_array().unwrap();
            let linked = kinds.iter().any(|k| k["kind"].as_str() != Some("dev"));
            if linked && id_name(&meta, dep["pkg"].as_str().unwrap()) == "crm-store-testkit" {
                wrong.push(format!("`{name}` depends on `crm-store-testkit`: only tests and benchmarks may"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
