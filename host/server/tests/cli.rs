//! The command line itself. (Having an integration test here also makes
//! `cargo test --workspace` build the `crm-host` binary the black-box tests run.)

use std::process::Command;

#[test]
fn help_lists_serve_and_admin() {
    let out = Command::new(env!("CARGO_BIN_EXE_crm-host")).arg("--help").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("serve") && text.contains("admin"), "{text}");
}

#[test]
fn an_unusable_listen_address_fails_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_crm-host"))
        .args(["serve", "--listen", "not-an-address", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not-an-address"));
}

#[test]
fn a_store_cache_below_its_floor_fails_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_crm-host"))
        .args(["serve", "--store-cache-mb", "8", "--data-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("store-cache-mb"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
