//! The guides name only what exists: every path, file and code name that
//! ARCHITECTURE.md and the guides (README.md, `docs/*.md`, the READMEs of
//! `plugins/`, `compat/`, `catalog/` and the plugin templates) write in
//! backticks is in the tree, and every link reaches its file and heading.
//! A rename that leaves a guide behind fails here, naming the guide's line.
//!
//! What counts as a name (outside fenced code blocks):
//! - a **path**: a backticked token of `/`-separated file-name characters
//!   that ends in `/`, has an extension, starts with `./` or `../`, or
//!   starts with a folder of the repository's root; found from the root or
//!   from the guide's folder, and, when it starts with none of those
//!   folders (`http/encoding.rs`, `store/`), as the end of some path in the
//!   tree. A bare `name.rs` (or `.md`, `.toml`, `.wit`, `.sh`, `.py`,
//!   `.yml`) is some file of that name. Paths out of the repository
//!   (`../shared/`, the contract beside it) are not this tree's;
//! - **`Type::method`**: a `fn method` in an `impl` of `Type` (its own or a
//!   trait's) or in `trait Type`;
//! - **`crate_name::path::item`** (and `item!`): a crate of either
//!   workspace, its modules, and the item declared in it;
//! - **`function()`**: a `fn function` somewhere;
//! - **`CamelCase`** (two humps or more, `ApiRequest` but not `ETag`): a
//!   type (struct, enum, trait, type alias) somewhere;
//! - **`` `file.rs`'s `name` ``**: `name` declared in that file;
//! - a **link** `[...](target)` to no URL: its file, from the guide's
//!   folder, and its `#heading` in a Markdown target.
//!
//! Placeholders are not names: tokens with `<`, `{`, `*` or a `...`
//! segment. What looks like a name and is not code is in [`NOT_CODE`], each
//! with its reason.
//!
//! The code's names are read by [`code`]; this module reads the guides.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::root;

mod code;
use code::{Code, Declared};

/// Tokens that look like code names and are not, each with why.
const NOT_CODE: &[(&str, &str)] = &[
    ("./data", "the data dir a host makes where it starts, not part of the tree"),
    ("./data/admin-token", "a file the host writes in its data dir"),
    ("DIR/store.crmbackup", "a file `crm-host store backup --to DIR` writes"),
    ("DIR/manifest.json", "a file `crm-host store backup --to DIR` writes"),
    ("m/contacts/", "a store key prefix, not a folder"),
    ("compat/X/", "X stands for a published version"),
    ("compat/X/plugin.wit", "X stands for a published version"),
    ("target/plugins/wasm32-wasip2/release/", "build output, not in the tree"),
    ("FormData", "the browser's form object"),
    ("bindings::export!", "the macro wit-bindgen generates in a partner's own crate"),
    ("validate.py", "a script of the shared catalog folder beside this repository"),
    ("CityError", "a schema of the OpenAPI document, a type of the generated clients"),
    ("fetch()", "JavaScript's own, which a JavaScript component may not use"),
    ("Uint8Array", "a JavaScript type, as componentize-js maps a WIT list<u8>"),
    ("BigInt", "a JavaScript type, as componentize-js maps a WIT u64"),
];

/// Bare file names (no folder) checked as files: sources and the files beside them.
const FILE_EXTENSIONS: &[&str] = &["rs", "md", "toml", "wit", "sh", "py", "yml"];

/// The guides: ARCHITECTURE, the README, `docs/*.md`, and the READMEs of
/// the plugins, compat, the catalog and the templates.
pub fn guides() -> Vec<PathBuf> {
    let mut guides = vec![root().join("ARCHITECTURE.md"), root().join("README.md")];
    let mut in_docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    in_docs.sort();
    guides.extend(in_docs);
    for readme in ["plugins/README.md", "compat/README.md", "catalog/README.md", "host/cli/templates/README.md"] {
        guides.push(root().join(readme));
    }
    guides
}

/// A Markdown text with its fenced code blocks blanked (lines kept, so
/// that line numbers hold).
fn prose(markdown: &str) -> String {
    let mut fenced = false;
    let lines = markdown.lines().map(|line| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            ""
        } else if fenced {
            ""
        } else {
            line
        }
    });
    lines.collect::<Vec<_>>().join("\n")
}

/// One inline code span: its text (a line break read as a space), the line
/// it starts on, and where it starts and ends (after its closing backticks)
/// in the prose.
#[derive(Debug)]
pub struct Span {
    pub text: String,
    pub line: usize,
    start: usize,
    end: usize,
}

/// The inline code spans of `prose`, as CommonMark reads them: a run of
/// backticks opens one, closed by the next run of as many.
pub fn spans(prose: &str) -> Vec<Span> {
    let bytes = prose.as_bytes();
    let run_at = |at: usize| bytes[at..].iter().take_while(|b| **b == b'`').count();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'`' {
            at += 1;
            continue;
        }
        let open = run_at(at);
        let mut close = at + open;
        let closed = loop {
            match bytes[close..].iter().position(|b| *b == b'`') {
                None => break None,
                Some(offset) => {
                    let run = run_at(close + offset);
                    if run == open {
                        break Some(close + offset);
                    }
                    close += offset + run;
                }
            }
        };
        match closed {
            Some(close) => {
                let text = prose[at + open..close].replace('\n', " ").trim().to_string();
                let line = prose[..at].matches('\n').count() + 1;
                found.push(Span { text, line, start: at, end: close + open });
                at = close + open;
            }
            None => at += open,
        }
    }
    found
}

/// What a backticked token names, if it names code or a path.
#[derive(Debug, PartialEq)]
pub enum Name {
    Path(String),
    Method { ty: String, method: String },
    Item { krate: String, modules: Vec<String>, item: String, is_macro: bool },
    Function(String),
    Type(String),
}

fn is_ident(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// What `token` names; `top` is the repository root's entries.
pub fn name_of(token: &str, top: &BTreeSet<String>) -> Option<Name> {
    if let Some(function) = token.strip_suffix("()")
        && is_ident(function)
        && function.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
    {
        return Some(Name::Function(function.to_string()));
    }
    if token.contains("::") {
        let (path, is_macro) = match token.strip_suffix('!') {
            Some(path) => (path, true),
            None => (token.strip_suffix("()").unwrap_or(token), false),
        };
        let segments: Vec<&str> = path.split("::").collect();
        if segments.len() < 2 || !segments.iter().all(|s| is_ident(s)) {
            return None;
        }
        let upper = |s: &str| s.starts_with(|c: char| c.is_ascii_uppercase());
        return match segments.as_slice() {
            [ty, method] if upper(ty) && !upper(method) && !is_macro => {
                Some(Name::Method { ty: ty.to_string(), method: method.to_string() })
            }
            [krate, rest @ ..] if !upper(krate) => {
                let (item, modules) = rest.split_last()?;
                Some(Name::Item {
                    krate: krate.to_string(),
                    modules: modules.iter().map(|m| m.to_string()).collect(),
                    item: item.to_string(),
                    is_macro,
                })
            }
            _ => None,
        };
    }
    // `ApiRequest`, not `ETag` or `POST`: an upper case letter, a lower case
    // one, and another hump.
    let mut chars = token.chars();
    let camel = chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.any(|c| c.is_ascii_uppercase());
    if is_ident(token) && camel && !token.contains('_') {
        return Some(Name::Type(token.to_string()));
    }
    let segments: Vec<&str> = token.trim_end_matches('/').split('/').collect();
    let file_chars = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    if token.starts_with('/')
        || !segments.iter().all(|s| file_chars(s))
        || segments.iter().any(|s| s.starts_with("..."))
    {
        return None;
    }
    let extension = segments.last().and_then(|s| s.rsplit_once('.')).map(|(_, e)| e).filter(|e| {
        !e.is_empty() && e.chars().all(|c| c.is_ascii_alphanumeric()) && e.chars().any(|c| c.is_ascii_alphabetic())
    });
    let path_like = if segments.len() == 1 {
        token.ends_with('/') || extension.is_some_and(|e| FILE_EXTENSIONS.contains(&e))
    } else {
        token.ends_with('/') || extension.is_some() || matches!(segments[0], "." | "..") || top.contains(segments[0])
    };
    path_like.then(|| Name::Path(token.to_string()))
}

/// The tree: every file and folder (a folder with a trailing `/`), as paths
/// from the root, outside `target/` and `.git/`.
pub struct Tree {
    paths: BTreeSet<String>,
    top: BTreeSet<String>,
}

impl Tree {
    pub fn read() -> Tree {
        fn walk(dir: &Path, from: &str, paths: &mut BTreeSet<String>) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name == "target" || name == ".git" {
                    continue;
                }
                let path = format!("{from}{name}");
                if entry.path().is_dir() {
                    paths.insert(format!("{path}/"));
                    walk(&entry.path(), &format!("{path}/"), paths);
                } else {
                    paths.insert(path);
                }
            }
        }
        let mut paths = BTreeSet::new();
        walk(&root(), "", &mut paths);
        let top = paths.iter().filter_map(|p| p.split('/').next()).map(str::to_string).collect();
        Tree { paths, top }
    }

    fn has(&self, path: &str, folder: bool) -> bool {
        match folder {
            true => self.paths.contains(&format!("{path}/")),
            false => self.paths.contains(path) || self.paths.contains(&format!("{path}/")),
        }
    }

    /// Whether `token`, written in the guide in `guide_folder` (from the
    /// root, `""` for it), names a file or folder of the tree; `None`: it
    /// leaves the repository.
    pub fn finds(&self, token: &str, guide_folder: &str) -> Option<bool> {
        let folder = token.ends_with('/');
        let written = token.trim_end_matches('/');
        let from_guide = normalized(&format!("{guide_folder}/{written}"));
        let from_root = normalized(written);
        if from_guide.is_none() && (token.starts_with("..") || from_root.is_none()) {
            return None;
        }
        if [&from_guide, &from_root].into_iter().flatten().any(|p| self.has(p, folder)) {
            return Some(true);
        }
        let first = written.split('/').next().unwrap_or_default();
        if matches!(first, "." | "..") || self.top.contains(first) {
            return Some(false);
        }
        let suffix = format!("/{written}{}", if folder { "/" } else { "" });
        Some(self.paths.iter().any(|p| p.ends_with(&suffix) || (!folder && p.ends_with(&format!("{suffix}/")))))
    }
}

/// `path` with its `.` and `..` segments resolved; `None` if it climbs out
/// of the root.
fn normalized(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// What is wrong with the names in `guide`: one line per name the tree or
/// the code does not have.
pub fn wrong_names(guide: &Path, tree: &Tree, code: &Code) -> Vec<String> {
    let text = prose(&std::fs::read_to_string(guide).unwrap());
    let relative = guide.strip_prefix(root()).unwrap();
    let folder = relative.parent().unwrap().to_string_lossy().into_owned();
    let spans = spans(&text);
    let mut wrong = Vec::new();
    for (i, span) in spans.iter().enumerate() {
        if NOT_CODE.iter().any(|(token, _)| *token == span.text) {
            continue;
        }
        let why = match name_of(&span.text, &tree.top) {
            Some(Name::Path(path)) => match tree.finds(&path, &folder) {
                Some(false) => Some("no such file or folder in the tree".to_string()),
                _ => None,
            },
            Some(name) => code.misses(&name),
            None => None,
        };
        // `file.rs`'s `name`: the file declares it.
        let why = why.or_else(|| {
            let member = spans.get(i + 1).filter(|next| &text[span.end..next.start] == "'s ")?;
            if !span.text.ends_with(".rs") || !is_ident(&member.text) {
                return None;
            }
            let files = code.files_named(&span.text, &folder);
            let declared = files.iter().any(|f| f.items.contains(&member.text) || f.macros.contains(&member.text));
            (!files.is_empty() && !declared).then(|| format!("`{}` declares no `{}`", span.text, member.text))
        });
        if let Some(why) = why {
            wrong.push(format!("{}:{}: `{}`: {why}", relative.display(), span.line, span.text));
        }
    }
    wrong
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces
/// as hyphens.
pub fn anchor(heading: &str) -> String {
    let kept: String =
        heading.trim().to_lowercase().chars().filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_')).collect();
    kept.replace(' ', "-")
}

fn anchors_of(markdown: &Path) -> BTreeSet<String> {
    let text = prose(&std::fs::read_to_string(markdown).unwrap_or_default());
    text.lines()
        .filter_map(|line| line.trim_start_matches('#').strip_prefix(' ').filter(|_| line.starts_with('#')))
        .map(anchor)
        .collect()
}

/// The links of `guide` whose file or heading is not there.
pub fn broken_links(guide: &Path) -> Vec<String> {
    let text = prose(&std::fs::read_to_string(guide).unwrap());
    let relative = guide.strip_prefix(root()).unwrap();
    let folder = guide.parent().unwrap();
    let mut broken = Vec::new();
    // Code spans are no links: `[x](y)` inside one is text.
    let mut plain = text.clone();
    for span in spans(&text) {
        plain.replace_range(span.start..span.end, &" ".repeat(span.end - span.start));
    }
    for (at, _) in plain.match_indices("](") {
        let rest = &plain[at + 2..];
        let Some(target) = rest.find(')').map(|end| &rest[..end]) else { continue };
        if target.contains(char::is_whitespace) || target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let line = plain[..at].matches('\n').count() + 1;
        let (file, heading) = target.split_once('#').unwrap_or((target, ""));
        let file = if file.is_empty() { guide.to_path_buf() } else { folder.join(file) };
        if !file.exists() {
            broken.push(format!("{}:{line}: ({target}): no such file", relative.display()));
        } else if !heading.is_empty()
            && file.extension().is_some_and(|e| e == "md")
            && !anchors_of(&file).contains(heading)
        {
            broken.push(format!("{}:{line}: ({target}): no such heading", relative.display()));
        }
    }
    broken
}

#[test]
fn the_guides_name_only_paths_and_code_that_exist() {
    let (tree, code) = (Tree::read(), Code::read());
    let wrong: Vec<String> = guides().iter().flat_map(|guide| wrong_names(guide, &tree, &code)).collect();
    assert!(
        wrong.is_empty(),
        "the guides name what the tree does not have (fix the guide; a name that is not code goes in NOT_CODE, with why):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_guides_links_reach_their_files_and_headings() {
    let broken: Vec<String> = guides().iter().flat_map(|guide| broken_links(guide)).collect();
    assert!(broken.is_empty(), "links in the guides that lead nowhere:\n{}", broken.join("\n"));
}

#[test]
fn every_name_not_code_is_still_written_somewhere() {
    let written: String = guides().iter().map(|g| std::fs::read_to_string(g).unwrap()).collect();
    let stale: Vec<&str> =
        NOT_CODE.iter().map(|(token, _)| *token).filter(|token| !written.contains(&format!("`{token}`"))).collect();
    assert!(stale.is_empty(), "NOT_CODE lists tokens no guide writes any more: {stale:?}");
}

#[test]
fn the_name_reader_reads_spans_names_and_impls() {
    let text = "a `x.rs`'s `f` and ``a ` b`` then `line\nbreak` and `unclosed";
    let spans = spans(text);
    let read: Vec<(&str, usize)> = spans.iter().map(|s| (s.text.as_str(), s.line)).collect();
    assert_eq!(read, [("x.rs", 1), ("f", 1), ("a ` b", 1), ("line break", 1)]);

    let top: BTreeSet<String> = ["host".to_string()].into();
    let path = |p: &str| Some(Name::Path(p.to_string()));
    assert_eq!(name_of("host/server/src/x.rs", &top), path("host/server/src/x.rs"));
    assert_eq!(name_of("http/encoding.rs", &top), path("http/encoding.rs"));
    assert_eq!(name_of("store/", &top), path("store/"));
    assert_eq!(name_of("host/server", &top), path("host/server"));
    assert_eq!(name_of("main.rs", &top), path("main.rs"));
    for not_a_path in
        ["text/csv", "/api/me", "B/quilla", "10.0.0.0/8", "tests/it/<area>.rs", "g/...", "a b/c.rs", "1.2.0"]
    {
        assert_eq!(name_of(not_a_path, &top), None, "{not_a_path}");
    }
    let method = Name::Method { ty: "Store".into(), method: "durable".into() };
    assert_eq!(name_of("Store::durable", &top), Some(method));
    assert_eq!(name_of("durable()", &top), Some(Name::Function("durable".into())));
    assert_eq!(name_of("ApiRequest", &top), Some(Name::Type("ApiRequest".into())));
    assert_eq!(name_of("POST", &top), None);
    assert_eq!(name_of("ETag", &top), None);
    assert_eq!(name_of("Crm-Bookmark", &top), None);
    let item =
        Name::Item { krate: "crm_sdk".into(), modules: vec![], item: "component_bindings".into(), is_macro: true };
    assert_eq!(name_of("crm_sdk::component_bindings!", &top), Some(item));
    assert_eq!(name_of("crate::", &top), None);

    let code = r####"
        /// impl Commented { fn not_this() {} }
        pub fn take(x: impl Fn() -> u8) -> impl Iterator<Item = u8> { let s = "impl Str { fn nor_this() {} }"; std::iter::empty() }
        impl<'a, T: Into<u8>> crate::api::Api<'a, T> where T: Clone { fn admit(&self) { let c = '{'; } }
        impl std::fmt::Display for Listener { fn fmt(&self) { let r = r#"}"#; } }
        trait Store { fn durable(&self); fn batch_if_shared(&self) {} }
        macro_rules! kit { () => {} }
    "####;
    let declared = Declared::read(code);
    let methods = |ty: &str| declared.methods.get(ty).cloned().unwrap_or_default().into_iter().collect::<Vec<_>>();
    assert_eq!(methods("Api"), ["admit"]);
    assert_eq!(methods("Listener"), ["fmt"]);
    assert_eq!(methods("Display"), ["fmt"]);
    assert_eq!(methods("Store"), ["batch_if_shared", "durable"]);
    assert!(methods("Commented").is_empty() && methods("Str").is_empty() && methods("Fn").is_empty());
    assert!(declared.items.contains("take") && !declared.items.contains("not_this"));
    assert!(declared.macros.contains("kit"));
    assert_eq!(anchor("Hosts near your customers"), "hosts-near-your-customers");
    assert_eq!(anchor("Reads: the catalog, `/me` and memory"), "reads-the-catalog-me-and-memory");
}
