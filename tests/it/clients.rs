//! The API's generated clients (`clients/python`, `clients/typescript`):
//! the committed ones are what `scripts/generate-clients.sh` makes of the
//! document the host serves (no drift), and each passes its tour
//! (`tests/clients/tour.py`, `tests/clients/tour.ts`, the latter compiled
//! with `tsc --strict`) against a live host with the Envia simulator and a
//! webhook receiver: identity, the catalog and its 304, contacts and every
//! documented refusal of theirs in the client's error types, companies, a
//! quote and a label, forms, an import and its history, the event types and
//! a test send. A tour asserts each answer and exits non-zero on the first
//! mismatch, which one run per tour shows by failing on purpose.
//!
//! The tools are those `scripts/install-client-generators.sh` (run by
//! `scripts/setup.sh`) installs under `target/client-generators`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crm_tests::receiver::Receiver;
use crm_tests::shop::Shop;
use crm_tests::*;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A tool `scripts/install-client-generators.sh` installed.
fn tool(path: &str) -> PathBuf {
    let tool = root().join("target/client-generators").join(path);
    assert!(
        tool.exists(),
        "{} is missing: run scripts/setup.sh (scripts/install-client-generators.sh)",
        tool.display()
    );
    tool
}

fn said(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn the_committed_clients_are_what_the_document_generates() {
    let out = Command::new(root().join("scripts/generate-clients.sh")).arg("--check").output().unwrap();
    assert!(out.status.success(), "{}", said(&out));
}

/// A host with the Envia simulator, private webhook URLs allowed, and what a
/// tour needs: a shop's `*` token, a form that opens deals, an organization
/// on plan free with a contact limit of 2, and a receiver.
struct Tour {
    shop: Shop,
    receiver: Receiver,
    env: Vec<(&'static str, String)>,
}

impl Tour {
    async fn start(name: &str) -> Tour {
        let receiver = Receiver::start().await;
        let shop = Shop::open_with(&[("CRM_WEBHOOK_ALLOW_PRIVATE", "true")]).await;
        let host = &shop.host;
        let form = host
            .admin(
                Method::POST,
                &format!("/admin/orgs/{}/forms", shop.org),
                Some(&json!({ "name": "Contacto", "createDeal": true })),
            )
            .await;
        assert_eq!(form.status, 201, "{}", form.text);
        let form = form.json();
        let free = json!({ "name": "Gratis", "plan": "free", "modules": { "api": true }, "limits": { "contacts": 2 } });
        let (_, limited) = host.org_with_token(free).await;
        let env = vec![
            ("CRM_API_URL", format!("{}/api", host.api)),
            ("CRM_ORG_ID", shop.org.clone()),
            ("CRM_TOKEN", shop.token.clone()),
            ("CRM_LIMITED_TOKEN", limited),
            ("CRM_FORM_ID", form["id"].as_str().unwrap().to_string()),
            ("CRM_FORM_KEY", form["publicKey"].as_str().unwrap().to_string()),
            ("CRM_WEBHOOK_URL", format!("{}/{name}", receiver.url)),
            ("CRM_TOUR", name.to_string()),
        ];
        Tour { shop, receiver, env }
    }

    fn run(&self, mut command: Command) -> Output {
        command.envs(self.env.iter().map(|(k, v)| (k, v))).output().unwrap()
    }

    /// The same tour told another organization id: its first check fails,
    /// and the process says which and exits non-zero.
    fn run_misled(&self, mut command: Command) -> Output {
        command.envs(self.env.iter().map(|(k, v)| (k, v))).env("CRM_ORG_ID", "0".repeat(24)).output().unwrap()
    }

    /// What the tour left outside the API: one signed test send of
    /// `form.submitted` at the receiver, and the simulator's one label.
    async fn check_what_it_sent(&self, name: &str) {
        let sent = self.receiver.received_at(&format!("/{name}"));
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert_eq!(
            (&sent[0].json()["type"], &sent[0].json()["organizationId"]),
            (&json!("form.submitted"), &json!(self.shop.org))
        );
        let secret =
            self.shop.host.admin(Method::GET, &format!("/admin/orgs/{}/webhook-secret", self.shop.org), None).await;
        assert!(sent[0].signed_with(secret.json()["secret"].as_str().unwrap()), "{:?}", sent[0]);
        let labels = self.shop.get("/api/shipments").await.json();
        assert_eq!(labels["pagination"]["total"], 1, "one label for one idempotency key: {labels}");
    }
}

fn python(script: &Path) -> Command {
    let mut command = Command::new(tool("python/bin/python"));
    command.arg(script).env("PYTHONPATH", root().join("clients/python")).env("PYTHONDONTWRITEBYTECODE", "1");
    command
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_client_passes_its_tour_against_a_live_host() {
    let tour = Tour::start("py").await;
    let script = root().join("tests/clients/tour.py");
    let out = tour.run(python(&script));
    assert!(out.status.success(), "the Python tour failed:\n{}", said(&out));
    let text = said(&out);
    assert!(text.contains("python tour: ") && text.contains(" checks passed"), "{text}");
    println!("{text}");
    tour.check_what_it_sent("py").await;

    let misled = tour.run_misled(python(&script));
    assert!(
        !misled.status.success() && said(&misled).contains("/me names the token's organization"),
        "{}",
        said(&misled)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_client_passes_its_tour_against_a_live_host() {
    // The tour beside a copy of the client's sources, as an integrator's project holds them.
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path();
    std::fs::create_dir(project.join("src")).unwrap();
    for file in ["index.ts", "schema.d.ts"] {
        std::fs::copy(root().join("clients/typescript/src").join(file), project.join("src").join(file)).unwrap();
    }
    std::fs::copy(root().join("tests/clients/tour.ts"), project.join("tour.ts")).unwrap();
    std::fs::write(project.join("package.json"), r#"{ "type": "module" }"#).unwrap();
    std::os::unix::fs::symlink(tool("node/node_modules"), project.join("node_modules")).unwrap();
    let tsc = Command::new(tool("node/node_modules/.bin/tsc"))
        .args(["--strict", "--noUncheckedIndexedAccess", "--target", "ES2022", "--module", "NodeNext"])
        .args([
            "--moduleResolution",
            "NodeNext",
            "--lib",
            "ES2022,DOM",
            "--types",
            "node",
            "--outDir",
            "out",
            "tour.ts",
        ])
        .current_dir(project)
        .output()
        .unwrap();
    assert!(tsc.status.success(), "tsc --strict refused the tour:\n{}", said(&tsc));

    let tour = Tour::start("ts").await;
    let node = || {
        let mut command = Command::new("node");
        command.arg("out/tour.js").current_dir(project);
        command
    };
    let out = tour.run(node());
    assert!(out.status.success(), "the TypeScript tour failed:\n{}", said(&out));
    let text = said(&out);
    assert!(text.contains("typescript tour: ") && text.contains(" checks passed"), "{text}");
    println!("{text}");
    tour.check_what_it_sent("ts").await;

    let misled = tour.run_misled(node());
    assert!(
        !misled.status.success() && said(&misled).contains("/me names the token's organization"),
        "{}",
        said(&misled)
    );
}

#[tokio::test]
async fn the_host_serves_the_very_document_the_clients_are_generated_from() {
    let host = Host::start().await;
    let served = host.call(Method::GET, "/api/openapi.json", None, None).await;
    assert_eq!(served.status, 200);
    let file = std::fs::read_to_string(root().join("host/server/src/api/openapi.json")).unwrap();
    assert!(served.text == file, "GET /api/openapi.json is not host/server/src/api/openapi.json byte for byte");
}
