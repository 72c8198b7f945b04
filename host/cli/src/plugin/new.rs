//! `crm-host plugin new --kind module|provider --lang rust|python|js NAME`: a
//! project for a new component, from the templates in `host/cli/templates/`
//! (compiled in), with the contract's text in its `wit/`. It builds as it
//! is, its tests pass, and its README walks the path to a running component;
//! `tests/it/plugin_kit.rs` follows that path for each kind and language.

use std::error::Error;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use crm_tenancy::ids;

#[derive(Debug, Args)]
pub struct NewArgs {
    /// What the component is.
    #[arg(long, value_enum)]
    kind: Kind,
    /// The language it is written in.
    #[arg(long, value_enum)]
    lang: Lang,
    /// Its name, as the host and the API call it: lower case letters,
    /// digits, `-` and `_`, a letter first, at most 32.
    name: String,
    /// The folder to make (default: ./NAME); it must not exist.
    #[arg(long)]
    dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Kind {
    Module,
    Provider,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Lang {
    Rust,
    Python,
    /// JavaScript, built with componentize-js (npm).
    Js,
}

/// A project's files: path and text, placeholders (`__NAME__`) not yet filled.
type Files = Vec<(&'static str, &'static str)>;

fn files(kind: Kind, lang: Lang) -> Files {
    let mut files: Files = vec![
        ("README.md", include_str!("../../templates/README.md")),
        ("wit/plugin.wit", crm_contract::TODAY),
        (".gitignore", "target/\n*.wasm\n.venv/\n__pycache__/\nnode_modules/\n"),
    ];
    files.extend(match (lang, kind) {
        (Lang::Rust, kind) => vec![
            ("Cargo.toml", include_str!("../../templates/rust/Cargo.toml")),
            (".cargo/config.toml", include_str!("../../templates/rust/config.toml")),
            match kind {
                Kind::Module => ("src/lib.rs", include_str!("../../templates/rust-module/src/lib.rs")),
                Kind::Provider => ("src/lib.rs", include_str!("../../templates/rust-provider/src/lib.rs")),
            },
        ],
        (Lang::Python, Kind::Module) => vec![
            ("build.sh", include_str!("../../templates/python/build.sh")),
            ("app.py", include_str!("../../templates/python-module/app.py")),
            ("counting.py", include_str!("../../templates/python-module/counting.py")),
            ("test_counting.py", include_str!("../../templates/python-module/test_counting.py")),
        ],
        (Lang::Python, Kind::Provider) => vec![
            ("build.sh", include_str!("../../templates/python/build.sh")),
            ("app.py", include_str!("../../templates/python-provider/app.py")),
            ("pricing.py", include_str!("../../templates/python-provider/pricing.py")),
            ("test_pricing.py", include_str!("../../templates/python-provider/test_pricing.py")),
        ],
        (Lang::Js, kind) => {
            let mut js = vec![
                ("package.json", include_str!("../../templates/js/package.json")),
                ("package-lock.json", include_str!("../../templates/js/package-lock.json")),
                ("build.mjs", include_str!("../../templates/js/build.mjs")),
            ];
            js.extend(match kind {
                Kind::Module => [
                    ("app.js", include_str!("../../templates/js-module/app.js")),
                    ("counting.js", include_str!("../../templates/js-module/counting.js")),
                    ("counting.test.js", include_str!("../../templates/js-module/counting.test.js")),
                ],
                Kind::Provider => [
                    ("app.js", include_str!("../../templates/js-provider/app.js")),
                    ("pricing.js", include_str!("../../templates/js-provider/pricing.js")),
                    ("pricing.test.js", include_str!("../../templates/js-provider/pricing.test.js")),
                ],
            });
            js
        }
    });
    files
}

/// What fills each placeholder of the templates.
fn placeholders(args: &NewArgs) -> Vec<(&'static str, String)> {
    let name = args.name.clone();
    let file_stem = name.replace('-', "_");
    let (wasm, test, build) = match args.lang {
        Lang::Rust => (
            format!("target/wasm32-wasip2/release/{file_stem}.wasm"),
            r#"cargo test --target "$(rustc -vV | sed -n 's/^host: //p')""#.to_string(),
            "rustup target add wasm32-wasip2 && cargo build --release".to_string(),
        ),
        Lang::Python => (format!("{file_stem}.wasm"), "python3 -m unittest".into(), "./build.sh".into()),
        Lang::Js => (format!("{file_stem}.wasm"), "node --test".into(), "npm run build".into()),
    };
    let (kind, world, try_it) = match args.kind {
        Kind::Module => {
            ("module", "module", format!("`GET /api/{name}` with a token answers `{{success, organization, calls}}`."))
        }
        Kind::Provider => (
            "shipping provider",
            "provider-component",
            format!(
                "enable it for an organization with `PUT /admin/orgs/{{org}}/integrations/{name}` (body `{{}}`); \
                 `POST /api/shipments/rates` then lists its rates beside the others."
            ),
        ),
    };
    let lang = match args.lang {
        Lang::Rust => "Rust",
        Lang::Python => "Python",
        Lang::Js => "JavaScript",
    };
    vec![
        ("__NAME__", name),
        ("__CRATE__", file_stem),
        ("__WIT_VERSION__", crm_contract::Text::today().version().to_string()),
        ("__KIND__", kind.into()),
        ("__LANG__", lang.into()),
        ("__WORLD__", world.into()),
        ("__WASM__", wasm),
        ("__TEST__", test),
        ("__BUILD__", build),
        ("__TRY__", try_it),
    ]
}

pub fn run(args: NewArgs) -> Result<(), Box<dyn Error>> {
    if !ids::is_slug(&args.name) {
        return Err(format!(
            "{:?} is not a component name: lower case letters, digits, - and _, a letter first, at most 32",
            args.name
        )
        .into());
    }
    let dir = args.dir.clone().unwrap_or_else(|| PathBuf::from(&args.name));
    if dir.exists() {
        return Err(format!("{} exists already: name a new folder with --dir", dir.display()).into());
    }
    let filled = placeholders(&args);
    for (path, template) in files(args.kind, args.lang) {
        let text = filled.iter().fold(template.to_string(), |text, (from, to)| text.replace(from, to));
        write(&dir.join(path), &text)?;
    }
    let filled_as = |name: &str| filled.iter().find(|(from, _)| *from == name).map_or("", |(_, to)| to.as_str());
    let (kind, lang, version) = (filled_as("__KIND__"), filled_as("__LANG__"), filled_as("__WIT_VERSION__"));
    println!("made {}: a {kind} in {lang}, built against crm:plugin@{version}", dir.display());
    println!("next: its README.md, from the tests to a running component");
    Ok(())
}

/// Writes one file, its folders first; scripts are made executable.
fn write(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, text)?;
    if path.extension().is_some_and(|e| e == "sh") {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}
