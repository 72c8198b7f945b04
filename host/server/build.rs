//! Builds the Wasm components in `plugins/` (their own workspace, target
//! `wasm32-wasip2`) so a plain `cargo build` of the host embeds them.
//!
//! Traps avoided (see the toolchain notes): the nested cargo gets its own target
//! dir (sharing the outer one deadlocks), a clean environment (outer RUSTFLAGS
//! and coverage wrappers break the wasm target; an outer `CARGO_PROFILE_*`,
//! such as `LTO=off` for a quicker host build, would silently change the
//! guests' code: `plugins/Cargo.toml`'s profile governs them), `--locked`, and
//! `rerun-if-changed` only on sources, never on a folder holding a target dir.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Components embedded in `crm-host` (see `src/embedded.rs`).
const EMBEDDED: &[&str] = &["contacts", "shipments", "forms", "import", "automations", "pipelines", "envia"];

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest_dir.ancestors().nth(2).expect("host/server sits two levels below the root").to_path_buf();
    let plugins = root.join("plugins");
    let target_dir = root.join("target").join("plugins");

    println!("cargo:rerun-if-changed={}", root.join("wit").display());
    for file in ["Cargo.toml", "Cargo.lock", ".cargo/config.toml"] {
        println!("cargo:rerun-if-changed={}", plugins.join(file).display());
    }
    // The guest SDK also builds `paging/`, and the import and forms modules
    // `text-decoding/`, outside `plugins/`.
    let shared = ["paging", "text-decoding"].into_iter().flat_map(|dir| walk_sources(&root.join(dir)));
    for entry in walk_sources(&plugins).into_iter().chain(shared) {
        println!("cargo:rerun-if-changed={}", entry.display());
    }

    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&plugins)
        .args(["build", "--release", "--locked", "--workspace", "--target", "wasm32-wasip2", "--target-dir"])
        .arg(&target_dir);
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_WRAPPER",
        "CARGO_MAKEFLAGS",
        "CARGO_PRIMARY_PACKAGE",
    ] {
        cmd.env_remove(var);
    }
    for (var, _) in std::env::vars().filter(|(var, _)| var.starts_with("CARGO_PROFILE_")) {
        cmd.env_remove(var);
    }
    let out = cmd.output().expect("run cargo for the Wasm components");
    if !out.status.success() {
        panic!(
            "building the Wasm components in {} failed:\n{}\nhint: `rustup target add wasm32-wasip2` (or ./scripts/setup.sh)",
            plugins.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let built = target_dir.join("wasm32-wasip2").join("release");
    for name in EMBEDDED {
        let wasm = built.join(format!("{}.wasm", name.replace('-', "_")));
        assert!(wasm.exists(), "{} was not built", wasm.display());
        println!("cargo:rustc-env=CRM_COMPONENT_{}={}", name.to_uppercase().replace('-', "_"), wasm.display());
    }
}

/// Source files of the guest crates (not their target dirs).
fn walk_sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if name == "target" || name.to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            out.extend(walk_sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs" || e == "toml") {
            out.push(path);
        }
    }
    out
}
