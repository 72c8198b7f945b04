//! The command line itself. (Having an integration test here also makes
//! `cargo test --workspace` build the `crm-host` binary the black-box tests run.)

use std::path::Path;
use std::process::Command;

/// `crm-host serve`, without the caller's store and plugins settings, and
/// with the compiled-component cache the black-box tests share (`crm-tests`):
/// a fresh one would compile every component again, for seconds.
fn serve() -> Command {
    let binary = Path::new(env!("CARGO_BIN_EXE_crm-host"));
    let mut command = Command::new(binary);
    command
        .arg("serve")
        .env("CRM_CACHE_DIR", binary.parent().expect("target/<profile>").join("component-cache"))
        .env_remove("CRM_STORE_URL")
        .env_remove("CRM_PLUGINS_DIR");
    command
}

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

/// DESIGN.md: the listen addresses and the data dir may come from the
/// environment instead of flags, as an operator's unit file sets them. And a
/// host whose stdout and stderr nobody reads any more (this test closes
/// stderr at once, and stops reading stdout after the addresses, before the
/// demo token) keeps serving.
#[test]
fn serve_reads_its_settings_from_the_environment_and_outlives_its_output() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::Stdio;

    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("from-env");
    let mut child = serve()
        .env("CRM_LISTEN", "127.0.0.1:0")
        .env("CRM_ADMIN_LISTEN", "127.0.0.1:0")
        .env("CRM_DATA_DIR", &data)
        .env("CRM_ADMIN_TOKEN", "from-env-admin")
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let (mut api, mut admin) = (None, None);
    for line in BufReader::new(child.stdout.take().unwrap()).lines().map_while(Result::ok) {
        if let Some(a) = line.strip_prefix("crm-host: API listening on http://") {
            api = Some(a.to_string());
        } else if let Some(a) = line.strip_prefix("crm-host: admin API listening on http://") {
            admin = Some(a.to_string());
        }
        if api.is_some() && admin.is_some() {
            break;
        }
    }
    let admin = admin.expect("the admin address was printed");
    let list_orgs = || {
        let mut stream = std::net::TcpStream::connect(&admin).unwrap();
        let head =
            "GET /admin/orgs HTTP/1.1\r\nhost: x\r\nauthorization: Bearer from-env-admin\r\nconnection: close\r\n\r\n";
        stream.write_all(head.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    };
    let first = list_orgs();
    // By now the host has tried to print the demo token to the closed pipe.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let second = list_orgs();
    let running = child.try_wait().unwrap().is_none();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(api.is_some_and(|a| a.starts_with("127.0.0.1:")));
    assert!(first.starts_with("HTTP/1.1 200") && second.starts_with("HTTP/1.1 200"), "{first}\n{second}");
    assert!(first.contains("Demo Organization"), "{first}");
    assert!(running, "the host exited when its output closed");
    assert!(std::fs::read_dir(&data).is_ok_and(|mut entries| entries.next().is_some()), "the store is in CRM_DATA_DIR");
}

/// Two hosts on one data dir: the second stops at once and says why.
#[test]
fn a_second_host_on_a_data_dir_in_use_says_so() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;

    let dir = tempfile::tempdir().unwrap();
    let serve_here = || {
        let mut command = serve();
        command
            .args(["--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--data-dir"])
            .arg(dir.path())
            .env("CRM_ADMIN_TOKEN", "in-use-admin");
        command
    };
    let mut first = serve_here().stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let listening = BufReader::new(first.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .any(|line| line.starts_with("crm-host: admin API listening on"));
    let second = serve_here().output().unwrap();
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(listening, "the first host started");
    assert!(!second.status.success());
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(said.contains("cannot open the store in") && said.contains("in use by another process"), "{said}");
}

/// A one-shot command whose reader has gone (`crm-host store copy ... | head
/// -c 1`) has still done its work: it succeeds quietly rather than panic on
/// the closed pipe. `store copy` needs no running host.
#[test]
fn a_one_shot_command_outlives_a_closed_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let copy = |stdout: std::process::Stdio| {
        Command::new(env!("CARGO_BIN_EXE_crm-host"))
            .args(["store", "copy", "--from"])
            .arg(format!("sled:{}", dir.path().join("from").display()))
            .arg("--to")
            .arg(format!("sled:{}", dir.path().join("to").display()))
            .stdout(stdout)
            .output()
            .unwrap()
    };
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let closed = copy(writer.into());
    let stderr = String::from_utf8_lossy(&closed.stderr);
    assert!(closed.status.success(), "{:?}: {stderr}", closed.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let read = copy(std::process::Stdio::piped());
    assert!(read.status.success());
    assert_eq!(
        String::from_utf8_lossy(&read.stdout),
        "crm-host: copied 0 organizations and 0 keys; every namespace's count verified\n"
    );
}
