//! The plugin contract's versions (`compat/`): every published text of
//! `crm:plugin` is kept as it was, today's `wit/plugin.wit` only adds to the
//! last one of its major version, and components built against each
//! published version, kept as built binaries, load and serve on today's host
//! without being rebuilt.

use std::path::{Path, PathBuf};

use crm_contract::{Text, drift};
use crm_tests::envia_sim::EnviaSim;
use crm_tests::shop::{self, Shop, package};
use crm_tests::*;
use sha2::{Digest, Sha256};

/// Every published version and the SHA-256 of its text: a published text
/// never changes, so changing one fails here before anything else.
const PUBLISHED: &[(&str, &str)] = &[
    ("1.0.0", "3cb361496fb1c9778ef59ab511ef63e29fc0b5b1567f41daa5dd4e70796569c2"),
    ("1.1.0", "176fcf3a4081039db9549be460fbead861b08adfb42c0c58b742d0fd5cc39bea"),
    ("1.2.0", "f3af179278d0105d6953dce1bc47cfacf356951a55e3d4f520d50c826d465b8c"),
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn published_text(version: &str) -> String {
    std::fs::read_to_string(repo().join("compat").join(version).join("plugin.wit")).unwrap()
}

fn parse(label: &str, text: &str) -> Text {
    Text::parse(label, text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_published_text_is_kept_as_it_was_published() {
    let mut kept: Vec<String> = std::fs::read_dir(repo().join("compat"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        PUBLISHED.iter().map(|(v, _)| v.to_string()).collect::<Vec<_>>(),
        "compat/ holds one folder a version"
    );
    for (version, sha) in PUBLISHED {
        let text = published_text(version);
        assert_eq!(
            hex(&Sha256::digest(text.as_bytes())),
            *sha,
            "compat/{version}/plugin.wit changed after it was published"
        );
        assert_eq!(parse(version, &text).version().to_string(), *version);
    }
}

#[test]
fn todays_wit_only_adds_to_the_last_published_version() {
    let today = std::fs::read_to_string(repo().join("wit/plugin.wit")).unwrap();
    let (last, _) = PUBLISHED.last().unwrap();
    let published = published_text(last);
    let found = drift::check((&published, &parse(last, &published)), (&today, &parse("wit", &today)));
    assert!(found.is_empty(), "wit/plugin.wit against compat/{last}:\n{}", found.join("\n"));
    // And every published minor version only added to the one before.
    for pair in PUBLISHED.windows(2) {
        let (old, new) = (published_text(pair[0].0), published_text(pair[1].0));
        let found = drift::check((&old, &parse(pair[0].0, &old)), (&new, &parse(pair[1].0, &new)));
        assert!(found.is_empty(), "{} against {}:\n{}", pair[1].0, pair[0].0, found.join("\n"));
    }
}

/// The check cannot be fooled by the changes that broke plugins elsewhere: a
/// record that gained a field (what `route` did between 1.0.0 and the
/// never-published texts after it), a function that went, a case that came,
/// an addition without `@since`, and a published text edited in place.
#[test]
fn a_change_that_is_not_additive_fails_the_check() {
    let v1 = published_text("1.0.0");
    let next = |edit: &dyn Fn(String) -> String| {
        let text = edit(v1.replace("package crm:plugin@1.0.0;", "package crm:plugin@1.1.0;"));
        drift::check((&v1, &parse("1.0.0", &v1)), (&text, &parse("next", &text))).join("\n")
    };
    // Told once, at the type: what uses it (`module-info`, `describe`) is
    // not told again.
    let route = "        deadline-ms: option<u32>,\n    }";
    let field =
        next(&|t| t.replace(route, "        deadline-ms: option<u32>,\n        max-body-bytes: option<u32>,\n    }"));
    assert_eq!(field, "types.route: field max-body-bytes: option<u32> in next, not in 1.0.0");

    let gone = next(&|t| t.replace("    delete: func(key: list<u8>) -> result<_, error>;\n", ""));
    assert_eq!(gone, "store.delete: a function in 1.0.0, not in next");

    let case = next(&|t| {
        t.replace("enum level { debug, info, warn, error }", "enum level { trace, debug, info, warn, error }")
    });
    assert_eq!(case, "runtime.level: case trace in next, not in 1.0.0");

    let retyped = next(&|t| t.replace("now-millis: func() -> u64;", "now-millis: func() -> s64;"));
    assert_eq!(retyped, "runtime.now-millis: func() -> u64 in 1.0.0, func() -> s64 in next");

    let millis = "    now-millis: func() -> u64;\n";
    let unmarked = next(&|t| t.replace(millis, &format!("{millis}    uptime: func() -> u64;\n")));
    assert_eq!(unmarked, "runtime.uptime: added in 1.1.0 without @since(version = 1.1.0)");
    let marked =
        next(&|t| t.replace(millis, &format!("{millis}    @since(version = 1.1.0)\n    uptime: func() -> u64;\n")));
    assert_eq!(marked, "", "an addition marked @since is what a minor version is for");

    let edited = v1.replace("/// Upper case, e.g. `GET`.", "/// Upper case.");
    let found = drift::check((&v1, &parse("1.0.0", &v1)), (&edited, &parse("edited", &edited)));
    assert_eq!(found, ["1.0.0 is published and frozen: a change is a new version, with @since on what it adds"]);

    let major = v1.replace("package crm:plugin@1.0.0;", "package crm:plugin@2.0.0;").replace(millis, "");
    let found = drift::check((&v1, &parse("1.0.0", &v1)), (&major, &parse("2.0.0", &major)));
    assert!(found.is_empty(), "a new major version may change anything: {found:?}");
}

/// The kept binaries of one published version, `plugin.wit` aside.
fn kept_components(version: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("compat").join(version))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "wasm"))
        .collect();
    files.sort();
    files
}

#[test]
fn plugin_check_loads_every_kept_component() {
    for (version, _) in PUBLISHED {
        for file in kept_components(version) {
            let out = std::process::Command::new(host_binary()).args(["plugin", "check"]).arg(&file).output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{}: {text}{}", file.display(), String::from_utf8_lossy(&out.stderr));
            assert!(text.contains(&format!("built against crm:plugin@{version}\n")), "{text}");
            assert!(text.contains("loads on this host: yes"), "{text}");
        }
    }
}

/// A component built from a text that was never published: `plugin check`
/// and the host's refusal at a reload name each difference, with the
/// versions on both sides, before wasmtime's words (which name only the
/// first).
#[tokio::test]
async fn a_drifted_component_is_refused_with_each_difference_named() {
    let drifted = built_component("drifted");
    let out = std::process::Command::new(host_binary()).args(["plugin", "check"]).arg(&drifted).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{text}");
    let problems: Vec<&str> = text.lines().filter(|l| l.starts_with("problem: ")).collect();
    let host = contract();
    let named = [
        format!("problem: store.vacuum: a function in the component (crm:plugin@1.0.0), not in this host ({host})"),
        format!(
            "problem: types.route: field max-body-bytes: option<u32> in the component (crm:plugin@1.0.0), not in this host ({host})"
        ),
    ];
    assert_eq!(problems[..2], named, "{text}");
    assert!(problems[2].starts_with("problem: imports something the host does not offer: "), "{text}");
    assert!(text.contains("built against: crm:plugin@1.0.0\n"), "{text}");
    assert!(text.ends_with("loads on this host: no\n"), "{text}");

    let temp = tempfile::tempdir().unwrap();
    let plugins = temp.path().join("plugins");
    std::fs::create_dir(&plugins).unwrap();
    let plugins_text = plugins.display().to_string();
    let host = Host::start_in(&temp.path().join("data"), &[("CRM_PLUGINS_DIR", &plugins_text)]).await;
    std::fs::copy(&drifted, plugins.join("drifted.wasm")).unwrap();
    let r = host.admin(Method::POST, "/admin/plugins/reload", None).await;
    assert_eq!((r.status.as_u16(), &r.json()["code"]), (422, &json!("PLUGIN_REFUSED")), "{}", r.text);
    let message = r.json()["message"].as_str().unwrap().to_string();
    for line in named {
        assert!(message.contains(line.trim_start_matches("problem: ")), "{message}");
    }
}

/// A host whose plugins dir holds one published version's kept components
/// (the 1.0.0 Envia provider replaces today's), with a shop on it.
async fn shop_on(version: &str) -> Shop {
    let env = [("CRM_PROVIDER_TIMEOUT_MS", shop::PROVIDER_TIMEOUT_MS), ("CRM_TRACKING_REFRESH_MS", "0")];
    let host = Host::start_with_plugin_files(&kept_components(version), &env).await;
    let sim = EnviaSim::start().await;
    let shop = Shop::on(host, sim).await;
    let path = format!("/admin/orgs/{}/integrations/flat-rate-courier", shop.org);
    let r = shop.host.admin(Method::PUT, &path, Some(&json!({}))).await;
    assert_eq!(r.status, 200, "{}", r.text);
    shop
}

async fn each_kept_component_serves(version: &str) {
    let shop = shop_on(version).await;
    let (host, token) = (&shop.host, &shop.token);
    let plugins = host.admin(Method::GET, "/admin/plugins", None).await.json();
    for file in kept_components(version) {
        let listed =
            plugins["data"].as_array().unwrap().iter().find(|p| {
                p["source"].as_str().is_some_and(|s| s.ends_with(&*file.file_name().unwrap().to_string_lossy()))
            });
        let listed = listed.unwrap_or_else(|| panic!("{} is not loaded: {plugins}", file.display()));
        assert_eq!(listed["contract"], json!([format!("crm:plugin@{version}")]), "{listed}");
    }

    // A partner's module: its route, its store.
    let hello_token = host.create_token(&shop.org, &["hello:read"]).await;
    for calls in [1, 2] {
        let r = host.get("/api/hello", &hello_token).await;
        assert_eq!((r.status.as_u16(), &r.json()["calls"]), (200, &json!(calls)), "{}", r.text);
    }

    // A module calling the contacts module through the `contacts` import.
    let r =
        host.post("/api/contacts-client/upsert", token, &json!({ "email": "compat@wit.co", "city": "Medellin" })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.json()["status"], 201, "{}", r.text);
    let id = r.json()["contactId"].as_str().unwrap().to_string();
    let contact = host.get(&format!("/api/contacts/{id}"), token).await;
    assert_eq!(
        (contact.status.as_u16(), &contact.json()["data"]["cityCode"]),
        (200, &json!("05001")),
        "{}",
        contact.text
    );

    // Containment holds for a component of any version.
    assert_eq!(host.get("/api/misbehave/trap", token).await.status, 500);
    assert_eq!(host.get("/api/misbehave/ok", token).await.status, 200);

    // Providers: the partner's courier beside Envia, both quoting.
    let r = shop.post("/api/shipments/rates", &json!({ "contactId": shop.contact, "packages": [package()] })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let providers: std::collections::BTreeSet<String> =
        r.json()["rates"].as_array().unwrap().iter().map(|r| r["provider"].as_str().unwrap().to_string()).collect();
    assert_eq!(providers, ["envia", "flat-rate-courier"].map(String::from).into_iter().collect());
    let courier = r.json()["rates"].as_array().unwrap().iter().find(|r| r["service"] == "next_day").cloned().unwrap();
    assert_eq!(courier["price"], 8000, "6,000 + 1,000 per kg, as that version computed it");
}

#[tokio::test]
async fn components_built_against_1_0_0_load_and_serve_without_a_rebuild() {
    each_kept_component_serves("1.0.0").await;
}

#[tokio::test]
async fn components_built_against_1_1_0_load_and_serve_without_a_rebuild() {
    each_kept_component_serves("1.1.0").await;
    // What 1.1.0 added: a route's own body limit.
    let host = Host::start_with_plugin_files(&kept_components("1.1.0"), &[]).await;
    let token = host.demo_token.clone().unwrap();
    let r =
        host.client.post(format!("{}/api/misbehave/small", host.api)).bearer_auth(&token).body(vec![b'x'; 65]).send();
    assert_eq!(r.await.unwrap().status(), 413);
}

#[tokio::test]
async fn components_built_against_1_2_0_load_and_serve_without_a_rebuild() {
    each_kept_component_serves("1.2.0").await;
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
