//! What the code of both workspaces declares, read from its text: the
//! guides' names are checked against it ([`super::wrong_names`]). A reader
//! of names, not a parser: comments and strings are blanked first, then
//! `fn`, `impl`, `trait`, type and `macro_rules!` declarations are found by
//! their keywords, which is all a guide's `Type::method` needs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::{Name, normalized};
use crate::tidy::{metadata, root, rust_files};

/// A Rust text with its comments, strings and character literals blanked
/// (replaced by spaces, line breaks kept), so that braces and keywords
/// inside them are not read as code.
pub fn blanked(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let ident_before = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        let end = if c == '/' && next == Some('/') {
            chars[i..].iter().position(|c| *c == '\n').map_or(chars.len(), |n| i + n)
        } else if c == '/' && next == Some('*') {
            let (mut depth, mut j) = (0usize, i);
            while j < chars.len() {
                if chars[j] == '/' && chars.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if chars[j] == '*' && chars.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            j
        } else if !ident_before && (c == 'r' || (c == 'b' && next == Some('r'))) && raw_string_at(&chars, i).is_some() {
            raw_string_at(&chars, i).unwrap()
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            j + 1
        } else if c == '\'' && next == Some('\\') {
            // After the escaped character, which may be a quote itself.
            chars.get(i + 3..).and_then(|rest| rest.iter().position(|c| *c == '\'')).map_or(chars.len(), |n| i + 4 + n)
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            i + 3
        } else {
            out.push(c);
            i += 1;
            continue;
        };
        let end = end.min(chars.len());
        out.extend(chars[i..end].iter().map(|c| blank(*c)));
        i = end;
    }
    out
}

/// Where the raw string starting at `at` (`r"`, `r#"`, `br#"`, ...) ends.
fn raw_string_at(chars: &[char], at: usize) -> Option<usize> {
    let mut i = at + if chars[at] == 'b' { 2 } else { 1 };
    let hashes = chars[i..].iter().take_while(|c| **c == '#').count();
    i += hashes;
    if chars.get(i) != Some(&'"') {
        return None;
    }
    let closing: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
    let body = i + 1;
    (body..chars.len()).find(|&j| chars[j..].starts_with(&closing)).map(|j| j + closing.len())
}

/// The positions of `word` in `code` as a word of its own.
fn words<'a>(code: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(word)
        .map(|(at, _)| at)
        .filter(move |&at| !code[..at].ends_with(ident) && !code[at + word.len()..].starts_with(ident))
}

/// The identifier at the start of `text`, after whitespace.
fn ident_at(text: &str) -> &str {
    let text = text.trim_start();
    let end = text.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len());
    &text[..end]
}

/// Where the `{` at `open` is closed in `code`.
fn block_end(code: &str, open: usize) -> usize {
    let mut depth = 0usize;
    for (at, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + at;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// What one file declares, from its blanked code.
#[derive(Default, Clone)]
pub struct Declared {
    /// Every item's name: functions, modules, types, traits, constants, statics.
    pub items: BTreeSet<String>,
    pub macros: BTreeSet<String>,
    pub types: BTreeSet<String>,
    /// Each type's and trait's methods: from `impl Type`, `impl Trait for
    /// Type` (both) and `trait Trait`.
    pub methods: BTreeMap<String, BTreeSet<String>>,
}

/// The last path segment of a type as an `impl` names it
/// (`&'a crate::api::Api<T>` → `Api`).
fn type_name(written: &str) -> String {
    let mut text = written.trim();
    loop {
        let before = text;
        text = text.trim_start_matches('&').trim_start();
        if text.starts_with('\'') {
            text = text[1..].trim_start_matches(|c: char| c.is_alphanumeric() || c == '_').trim_start();
        }
        for keyword in ["mut ", "dyn ", "unsafe "] {
            text = text.strip_prefix(keyword).unwrap_or(text).trim_start();
        }
        if text == before {
            break;
        }
    }
    let path = &text[..text.find('<').unwrap_or(text.len())];
    ident_at(path.rsplit("::").next().unwrap_or_default()).to_string()
}

/// `header` cut at `word`, outside angle brackets (`->` is no bracket).
fn split_at_word<'a>(header: &'a str, word: &str) -> Option<(&'a str, &'a str)> {
    let mut depth = 0i32;
    let bytes = header.as_bytes();
    for (at, c) in header.char_indices() {
        match c {
            '<' => depth += 1,
            '>' if at == 0 || bytes[at - 1] != b'-' => depth -= 1,
            _ => {}
        }
        if depth == 0
            && header[at..].starts_with(word)
            && (at == 0 || !header[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
            && !header[at + word.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
        {
            return Some((&header[..at], &header[at + word.len()..]));
        }
    }
    None
}

impl Declared {
    pub fn read(code: &str) -> Declared {
        let code = blanked(code);
        let mut declared = Declared::default();
        for keyword in ["fn", "mod", "struct", "enum", "union", "trait", "type", "const", "static"] {
            for at in words(&code, keyword) {
                if code[..at].ends_with('\'') {
                    continue; // 'static
                }
                let name = ident_at(&code[at + keyword.len()..]);
                if name.is_empty() || !code[at + keyword.len()..].starts_with(char::is_whitespace) {
                    continue;
                }
                declared.items.insert(name.to_string());
                if matches!(keyword, "struct" | "enum" | "union" | "trait" | "type") {
                    declared.types.insert(name.to_string());
                }
            }
        }
        for at in words(&code, "macro_rules") {
            if let Some(rest) = code[at + "macro_rules".len()..].trim_start().strip_prefix('!') {
                declared.macros.insert(ident_at(rest).to_string());
            }
        }
        let functions_in = |open: usize| -> BTreeSet<String> {
            let body = &code[open..block_end(&code, open)];
            words(body, "fn").map(|at| ident_at(&body[at + 2..]).to_string()).filter(|n| !n.is_empty()).collect()
        };
        for at in words(&code, "trait") {
            let name = ident_at(&code[at + 5..]);
            if let (false, Some(open)) = (name.is_empty(), code[at..].find(['{', ';']).map(|n| at + n))
                && code[open..].starts_with('{')
            {
                declared.methods.entry(name.to_string()).or_default().extend(functions_in(open));
            }
        }
        for at in words(&code, "impl") {
            // An item, not `impl Trait` in a signature: after a block, an
            // item or an attribute, or `unsafe`.
            let before = code[..at].trim_end();
            let item = before.is_empty()
                || before.ends_with(['{', '}', ';', ']'])
                || before.ends_with("unsafe")
                || before.ends_with("default");
            let Some(open) = code[at..].find(['{', ';']).map(|n| at + n) else { continue };
            if !item || !code[open..].starts_with('{') {
                continue;
            }
            let mut header = code[at + 4..open].trim();
            if header.starts_with('<') {
                let mut depth = 0i32;
                let mut cut = header.len();
                for (i, c) in header.char_indices() {
                    match c {
                        '<' => depth += 1,
                        '>' if i == 0 || !header[..i].ends_with('-') => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        cut = i + 1;
                        break;
                    }
                }
                header = &header[cut..];
            }
            let header = split_at_word(header, "where").map_or(header, |(before, _)| before);
            let methods = functions_in(open);
            let names = match split_at_word(header, "for") {
                Some((tr, ty)) => vec![type_name(tr), type_name(ty)],
                None => vec![type_name(header)],
            };
            for name in names.into_iter().filter(|n| !n.is_empty()) {
                declared.methods.entry(name).or_default().extend(methods.iter().cloned());
            }
        }
        declared
    }

    fn merge(&mut self, other: Declared) {
        self.items.extend(other.items);
        self.macros.extend(other.macros);
        self.types.extend(other.types);
        for (ty, methods) in other.methods {
            self.methods.entry(ty).or_default().extend(methods);
        }
    }
}

/// What the code of both workspaces declares, per crate (by its name as
/// code writes it, `crm_store`) and all together, and per file (from the root).
pub struct Code {
    crates: BTreeMap<String, (Declared, BTreeSet<String>)>,
    all: Declared,
    files: BTreeMap<String, Declared>,
}

impl Code {
    pub fn read() -> Code {
        let mut crates = BTreeMap::new();
        let mut all = Declared::default();
        let mut files = BTreeMap::new();
        for manifest in [root().join("Cargo.toml"), root().join("plugins/Cargo.toml")] {
            for package in metadata(&manifest, true)["packages"].as_array().unwrap() {
                let folder = PathBuf::from(package["manifest_path"].as_str().unwrap()).parent().unwrap().to_path_buf();
                let mut paths = Vec::new();
                for sub in ["src", "tests", "examples", "benches"] {
                    if folder.join(sub).is_dir() {
                        rust_files(&folder.join(sub), &mut paths);
                    }
                }
                if folder.join("build.rs").is_file() {
                    paths.push(folder.join("build.rs"));
                }
                let (mut declared, mut modules) = (Declared::default(), BTreeSet::new());
                for path in paths {
                    let file = Declared::read(&std::fs::read_to_string(&path).unwrap());
                    if path.starts_with(folder.join("src")) {
                        modules.extend(path.file_stem().map(|s| s.to_string_lossy().into_owned()));
                        if let Some(parent) = path.parent().and_then(Path::file_name) {
                            modules.insert(parent.to_string_lossy().into_owned());
                        }
                        declared.merge(file.clone());
                    }
                    all.merge(file.clone());
                    files.insert(path.strip_prefix(root()).unwrap().to_string_lossy().into_owned(), file);
                }
                modules.extend(declared.items.iter().cloned());
                let name = package["name"].as_str().unwrap().replace('-', "_");
                crates.insert(name, (declared, modules));
            }
        }
        Code { crates, all, files }
    }

    /// Why `name` names nothing in the code, if it does not.
    pub fn misses(&self, name: &Name) -> Option<String> {
        match name {
            Name::Path(_) => None,
            Name::Function(f) => (!self.all.items.contains(f)).then(|| format!("no `fn {f}` in the code")),
            Name::Type(t) => (!self.all.types.contains(t)).then(|| format!("no type `{t}` in the code")),
            Name::Method { ty, method } => match self.all.methods.get(ty) {
                None => Some(format!("no `impl {ty}` or `trait {ty}` in the code")),
                Some(methods) if !methods.contains(method) => Some(format!("no `fn {method}` in an impl of `{ty}`")),
                Some(_) => None,
            },
            Name::Item { krate, modules, item, is_macro } => {
                let Some((declared, known_modules)) = self.crates.get(krate) else {
                    return Some(format!("no crate `{krate}` in either workspace"));
                };
                if let Some(missing) = modules.iter().find(|m| !known_modules.contains(*m)) {
                    return Some(format!("no module `{missing}` in `{krate}`"));
                }
                let found = match is_macro {
                    true => declared.macros.contains(item),
                    false => declared.items.contains(item) || known_modules.contains(item),
                };
                (!found).then(|| format!("no `{item}` declared in `{krate}`"))
            }
        }
    }

    /// The files (from the root) that `token`, a file named in a guide in
    /// `guide_folder`, may be.
    pub fn files_named(&self, token: &str, guide_folder: &str) -> Vec<&Declared> {
        let from_guide = normalized(&format!("{guide_folder}/{token}"));
        self.files
            .iter()
            .filter(|(path, _)| {
                Some(path.as_str()) == from_guide.as_deref() || *path == token || path.ends_with(&format!("/{token}"))
            })
            .map(|(_, declared)| declared)
            .collect()
    }
}
