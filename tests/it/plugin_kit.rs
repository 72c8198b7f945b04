//! The partner's kit: `crm-host plugin test` runs a component with the
//! cases its kind must pass (and fails a provider that takes an unknown
//! outcome for a refusal), and the partner's path is followed literally:
//! `crm-host plugin new` makes a project for each kind and language, the
//! commands its README gives test and build it, `plugin check` and `plugin
//! test` pass what they built, and a host serves it: the providers quote
//! beside Envia, the modules answer their route.
//!
//! The Rust projects share one `target/` (a link to one folder), so the
//! second build reuses the first's compiled dependencies; the Python ones
//! use the componentize-py that `scripts/setup.sh` installed, and the
//! JavaScript ones its componentize-js (their `node_modules` a link to
//! `target/componentize-js/node_modules`, installed from the scaffold's own
//! package-lock.json).

use std::path::{Path, PathBuf};
use std::process::Command;

use crm_tests::envia_sim::EnviaSim;
use crm_tests::shop::{self, Shop, package};
use crm_tests::*;

/// Makes `name` with `crm-host plugin new` in `dir`; its folder.
fn scaffold(dir: &Path, kind: &str, lang: &str, name: &str) -> PathBuf {
    let out = Command::new(host_binary())
        .args(["plugin", "new", "--kind", kind, "--lang", lang, name])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    dir.join(name)
}

/// The command of one numbered step of a project's README (`1. Test its
/// rules: `cmd``), so the test runs what a partner reads.
fn readme_step(project: &Path, step: &str) -> String {
    let readme = std::fs::read_to_string(project.join("README.md")).unwrap();
    let line = readme.lines().find(|l| l.starts_with(&format!("{step}. "))).unwrap_or_else(|| panic!("{readme}"));
    line.split('`').nth(1).unwrap_or_else(|| panic!("no command in {line:?}")).to_string()
}

fn run_step(project: &Path, step: &str) {
    let command = readme_step(project, step);
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/componentize-py");
    let out = Command::new("bash")
        .args(["-c", &command])
        .current_dir(project)
        .env("COMPONENTIZE_PY_VENV", venv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} step {step} ({command}) failed:\n{}{}",
        project.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// What step 2 built, where the README says it is.
fn built(project: &Path) -> PathBuf {
    let readme = std::fs::read_to_string(project.join("README.md")).unwrap();
    let wasm = readme.split("(writes `").nth(1).and_then(|rest| rest.split('`').next()).expect("the built file");
    project.join(wasm)
}

/// The componentize-js `scripts/setup.sh` installed (`scripts/install-componentize-js.sh`).
fn componentize_js() -> PathBuf {
    let modules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/componentize-js/node_modules");
    assert!(
        modules.join("@bytecodealliance/componentize-js").exists(),
        "{} is missing: run scripts/setup.sh",
        modules.display()
    );
    modules
}

/// `crm-host plugin` with the test hosts' compile cache, so that a component
/// checked, tested and served is compiled once (a JavaScript or Python one
/// takes tens of seconds on a busy debug host).
fn plugin(command: &str) -> Command {
    let mut plugin = Command::new(host_binary());
    plugin.args(["plugin", command]).env("CRM_CACHE_DIR", shared_cache_dir());
    plugin
}

fn check(file: &Path) -> String {
    let out = plugin("check").arg(file).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    text
}

/// `crm-host plugin test --json FILE`: whether every case passed, and the report.
fn plugin_test(file: &Path) -> (bool, Value) {
    let out = plugin("test").arg("--json").arg(file).output().unwrap();
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!("no report: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    (out.status.success(), report)
}

/// The cases of a report with this result (`pass`, `fail`, `n/a`).
fn cases(report: &Value, result: &str) -> Vec<String> {
    let all = report["cases"].as_array().unwrap();
    all.iter().filter(|c| c["result"] == result).map(|c| c["case"].as_str().unwrap().to_string()).collect()
}

#[test]
fn plugin_test_fails_a_provider_that_answers_an_unknown_outcome_as_rejected() {
    let (passed, report) = plugin_test(&built_component("careless_courier"));
    assert!(!passed, "{report:#}");
    assert_eq!(
        cases(&report, "fail"),
        [
            "generate: the carrier fails after taking it (HTTP 503): unknown outcome",
            "generate: the carrier does not answer in time: unknown outcome",
            "generate: the connection breaks: unknown outcome",
        ],
        "{report:#}"
    );
    let case = |name: &str| report["cases"].as_array().unwrap().iter().find(|c| c["case"] == name).unwrap().clone();
    assert_eq!(
        case("generate: the carrier fails after taking it (HTTP 503): unknown outcome")["detail"],
        "answered rejected (CARRIER_ERROR: the carrier answered 503); it must answer unknown-outcome"
    );
    assert_eq!(case("generate: the carrier refuses (HTTP 400): rejected")["result"], "pass");
    assert_eq!(case("generate: a retry carries the same reference, so no second label is bought")["result"], "pass");
    assert_eq!(report["component"], json!({ "name": "careless-courier", "version": "1.0.0", "kind": "provider" }));
}

#[test]
fn plugin_test_passes_the_components_this_project_ships_and_says_what_did_not_apply() {
    for stem in ["flat_rate_courier", "envia", "partner_hello"] {
        let (passed, report) = plugin_test(&built_component(stem));
        assert!(passed && report["failed"] == 0, "{stem}: {report:#}");
    }
    // A courier without a carrier's API: the cases about its answers do not apply.
    let (_, report) = plugin_test(&built_component("flat_rate_courier"));
    assert_eq!(cases(&report, "n/a").len(), 5, "four of generate and one of cancel: {report:#}");
    assert_eq!(report["passed"], 4, "{report:#}");
    // The text report, for a person.
    let out =
        Command::new(host_binary()).args(["plugin", "test"]).arg(built_component("partner_hello")).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("component: partner-hello 1.0.0 (module)\n"), "{text}");
    for caller in
        ["a token with every permission", "a token with only hello:read", "another organization, its store empty"]
    {
        assert!(text.contains(&format!("\nPASS  GET /hello, for {caller}: 200 in ")), "{text}");
    }
    assert!(text.ends_with("result: 3 passed, 0 failed, 0 not applicable\n"), "{text}");
}

/// The smallest component that imports `wasi:http/types@0.2.3` (an instance
/// exporting one function, `f: func()`) and nothing else, in the component
/// binary format: what a JavaScript build without `disableFeatures: ["http",
/// "fetch-event"]` imports beside the contract. (An instance that exports
/// nothing would link, missing or not.)
fn importing_wasi_http() -> Vec<u8> {
    let name = b"wasi:http/types@0.2.3";
    let len = u8::try_from(name.len()).unwrap();
    // A type section: one instance type, declaring `func()` and exporting it as `f`.
    let instance = [1, 0x42, 2, 0x01, 0x40, 0, 0x01, 0, 0x04, 0, 1, b'f', 0x01, 0];
    let mut bytes = b"\0asm\x0d\x00\x01\x00".to_vec();
    bytes.extend([7, u8::try_from(instance.len()).unwrap()]);
    bytes.extend(instance);
    bytes.extend([10, len + 5, 1, 0, len]); // an import section: that name, an instance of type 0
    bytes.extend(name);
    bytes.extend([5, 0]);
    bytes
}

#[test]
fn plugin_check_names_the_fix_for_a_javascript_build_that_imports_wasi_http() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fetching.wasm");
    std::fs::write(&file, importing_wasi_http()).unwrap();
    let out = Command::new(host_binary()).args(["plugin", "check"]).arg(&file).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("\nproblem: imports something the host does not offer: "), "{text}");
    assert!(text.contains("\nfix: wasi:http/types@0.2.3 is not offered to components"), "{text}");
    assert!(text.contains(r#"disableFeatures: ["http", "fetch-event"]"#), "{text}");
    assert!(text.ends_with("loads on this host: no\n"), "{text}");
}

#[test]
fn plugin_check_and_test_compile_once_into_a_cache_dir() {
    let cache = tempfile::tempdir().unwrap();
    let compiled = || {
        let files = std::fs::read_dir(cache.path()).unwrap().map(|f| f.unwrap().path());
        let cwasm: Vec<_> = files.filter(|f| f.extension().is_some_and(|e| e == "cwasm")).collect();
        assert_eq!(cwasm.len(), 1, "{cwasm:?}");
        std::fs::metadata(&cwasm[0]).unwrap().modified().unwrap()
    };
    let run = |command: &str| {
        let file = built_component("partner_hello");
        let mut plugin = Command::new(host_binary());
        let out = plugin.args(["plugin", command, "--cache-dir"]).arg(cache.path()).arg(file).output().unwrap();
        assert!(out.status.success(), "plugin {command}: {}", String::from_utf8_lossy(&out.stderr));
    };
    run("check");
    let first = compiled();
    run("test");
    assert_eq!(compiled(), first, "the test ran on the check's compile");
}

#[test]
fn plugin_new_refuses_a_bad_name_and_a_folder_that_exists() {
    let dir = tempfile::tempdir().unwrap();
    let new = |name: &str| {
        let out = Command::new(host_binary())
            .args(["plugin", "new", "--kind", "module", "--lang", "rust", name])
            .current_dir(dir.path())
            .output()
            .unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (made, said) = new("Bad Name");
    assert!(!made && said.contains("\"Bad Name\" is not a component name"), "{said}");
    assert!(new("kept").0);
    let (made, said) = new("kept");
    assert!(!made && said.contains("kept exists already"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "slow: builds six new projects, 5 min 15 s on the busy 2-core machine, and fetches their crates; .ci/run runs it (cargo test -- --include-ignored)"]
async fn each_scaffold_builds_passes_its_tests_and_serves_as_its_readme_says() {
    let dir = tempfile::tempdir().unwrap();
    let shared_target = dir.path().join("rust-target");
    std::fs::create_dir(&shared_target).unwrap();
    let projects = [
        ("provider", "rust", "acme-courier"),
        ("module", "rust", "acme-hello"),
        ("provider", "python", "py-courier"),
        ("module", "python", "py-hello"),
        ("provider", "js", "js-courier"),
        ("module", "js", "js-hello"),
    ];
    let mut components = Vec::new();
    for (kind, lang, name) in projects {
        let project = scaffold(dir.path(), kind, lang, name);
        assert!(
            std::fs::read_to_string(project.join("wit/plugin.wit"))
                .unwrap()
                .contains(&format!("package {};", contract()))
        );
        if lang == "rust" {
            std::os::unix::fs::symlink(&shared_target, project.join("target")).unwrap();
        }
        if lang == "js" {
            std::os::unix::fs::symlink(componentize_js(), project.join("node_modules")).unwrap();
        }
        let started = std::time::Instant::now();
        run_step(&project, "1"); // its own tests
        run_step(&project, "2"); // the build
        let build = started.elapsed();
        let wasm = built(&project);
        let said = check(&wasm);
        assert!(said.contains(&format!("name: {name} ")), "{said}");
        assert!(said.contains(&format!("built against {}\n", contract())), "{said}");
        let (passed, report) = plugin_test(&wasm);
        assert!(passed && report["failed"] == 0 && report["passed"].as_u64() > Some(0), "{report:#}");
        // What a partner waits for, per language (plugins/README.md, "What a call costs").
        let size = std::fs::metadata(&wasm).unwrap().len() as f64 / 1e6;
        let (build, all) = (build.as_secs_f64(), started.elapsed().as_secs_f64());
        println!("{name} ({size:.1} MB): tests and build {build:.1} s, then check and test {:.1} s", all - build);
        components.push(wasm);
    }

    // Step 4: into a host's plugins dir; step 5: what the README says to try.
    let env = [("CRM_PROVIDER_TIMEOUT_MS", shop::PROVIDER_TIMEOUT_MS), ("CRM_TRACKING_REFRESH_MS", "0")];
    let host = Host::start_with_plugin_files(&components, &env).await;
    let shop = Shop::on(host, EnviaSim::start().await).await;
    for provider in ["acme-courier", "py-courier", "js-courier"] {
        let path = format!("/admin/orgs/{}/integrations/{provider}", shop.org);
        let r = shop.host.admin(Method::PUT, &path, Some(&json!({}))).await;
        assert_eq!(r.status, 200, "{}", r.text);
    }
    let r = shop.post("/api/shipments/rates", &json!({ "contactId": shop.contact, "packages": [package()] })).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let rates = r.json()["rates"].as_array().unwrap().clone();
    for provider in ["acme-courier", "py-courier", "js-courier"] {
        let next_day = rates.iter().find(|r| r["provider"] == provider && r["service"] == "next_day");
        assert_eq!(next_day.map(|r| r["price"].clone()), Some(json!(8000)), "6,000 + 1,000 per kg: {rates:?}");
    }
    // A label the provider refuses: its `rejected`, in each language's way of
    // answering an error, reaches the API as the shipments module's 422.
    for provider in ["acme-courier", "py-courier", "js-courier"] {
        let mut body = shop.label_body(Some(&format!("{provider}-teleport")));
        body["carrier"] = json!(provider);
        body["service"] = json!("teleport");
        let r = shop.post("/api/shipments", &body).await;
        assert_eq!(
            (r.status.as_u16(), r.json()["error"]["code"].clone()),
            (422, json!("UNKNOWN_SERVICE")),
            "{provider}: {}",
            r.text
        );
    }
    for module in ["acme-hello", "py-hello", "js-hello"] {
        for calls in [1, 2] {
            let r = shop.host.get(&format!("/api/{module}"), &shop.token).await;
            assert_eq!(r.status, 200, "{}", r.text);
            assert_eq!(r.json(), json!({ "success": true, "organization": shop.org, "calls": calls }));
        }
    }
}
