//! The rule that keeps shipped components loading: a minor version of
//! `crm:plugin` only adds to the one before it.
//!
//! [`drift`] compares two texts of the package item by item, types by their
//! structure (a record's fields, a variant's cases, down to the primitives),
//! and names each thing the newer text removed or changed, and each addition
//! to something that existed that lacks `@since`. Interfaces, functions,
//! types and worlds may be added, and a world may gain imports and exports;
//! nothing may change or go. A new major version may change anything: the
//! host then serves the old one beside it.

use wit_parser::{Function, Handle, PackageId, Resolve, Stability, Type, TypeDefKind, TypeId, WorldItem, WorldKey};

/// A text of the package, resolved.
pub struct Text {
    resolve: Resolve,
    package: PackageId,
}

impl Text {
    pub fn parse(label: &str, wit: &str) -> Result<Text, String> {
        let mut resolve = Resolve::default();
        let package = resolve.push_str(format!("{label}.wit"), wit).map_err(|e| format!("{label}: {e:#}"))?;
        Ok(Text { resolve, package })
    }

    /// `1.1.0` of `package crm:plugin@1.1.0;`.
    pub fn version(&self) -> semver::Version {
        self.resolve.packages[self.package].name.version.clone().expect("the package has a version")
    }
}

/// What `new` removed or changed of `old`, and what it added without `@since`
/// (one line each, naming the interface or world, the item, and both sides).
pub fn drift(old: &Text, new: &Text) -> Vec<String> {
    let mut found = Vec::new();
    let (old_pkg, new_pkg) = (&old.resolve.packages[old.package], &new.resolve.packages[new.package]);
    let since = new.version();
    for (name, &old_id) in &old_pkg.interfaces {
        let Some(&new_id) = new_pkg.interfaces.get(name) else {
            found.push(format!("interface {name}: removed"));
            continue;
        };
        let (was, now) = (&old.resolve.interfaces[old_id], &new.resolve.interfaces[new_id]);
        for (ty, &old_ty) in &was.types {
            match now.types.get(ty) {
                None => found.push(format!("{name}.{ty}: type removed")),
                Some(&new_ty) => {
                    let (a, b) = (render_def(&old.resolve, old_ty), render_def(&new.resolve, new_ty));
                    if a != b {
                        found.push(format!("{name}.{ty}: type was {a}, is now {b}"));
                    }
                }
            }
        }
        for (f, old_f) in &was.functions {
            match now.functions.get(f) {
                None => found.push(format!("{name}.{f}: function removed")),
                Some(new_f) => {
                    let (a, b) = (signature(&old.resolve, old_f), signature(&new.resolve, new_f));
                    if a != b {
                        found.push(format!("{name}.{f}: was {a}, is now {b}"));
                    }
                }
            }
        }
        for (ty, &id) in &now.types {
            if !was.types.contains_key(ty) {
                unmarked(&mut found, &format!("{name}.{ty}"), &new.resolve.types[id].stability, &since);
            }
        }
        for (f, func) in &now.functions {
            if !was.functions.contains_key(f) {
                unmarked(&mut found, &format!("{name}.{f}"), &func.stability, &since);
            }
        }
    }
    for (name, &id) in &new_pkg.interfaces {
        if !old_pkg.interfaces.contains_key(name) {
            unmarked(&mut found, &format!("interface {name}"), &new.resolve.interfaces[id].stability, &since);
        }
    }
    for (name, &old_id) in &old_pkg.worlds {
        let Some(&new_id) = new_pkg.worlds.get(name) else {
            found.push(format!("world {name}: removed"));
            continue;
        };
        let (was, now) = (&old.resolve.worlds[old_id], &new.resolve.worlds[new_id]);
        for (side, a, b) in [("import", &was.imports, &now.imports), ("export", &was.exports, &now.exports)] {
            let a = items(&old.resolve, a);
            let b = items(&new.resolve, b);
            for (key, item, _) in &a {
                match b.iter().find(|(k, _, _)| k == key) {
                    None => found.push(format!("world {name}: {side} {key} removed")),
                    Some((_, now, _)) if now != item => {
                        found.push(format!("world {name}: {side} {key} was {item}, is now {now}"))
                    }
                    Some(_) => {}
                }
            }
            for (key, _, stability) in &b {
                if !a.iter().any(|(k, _, _)| k == key) {
                    unmarked(&mut found, &format!("world {name}: {side} {key}"), stability, &since);
                }
            }
        }
    }
    for (name, &id) in &new_pkg.worlds {
        if !old_pkg.worlds.contains_key(name) {
            unmarked(&mut found, &format!("world {name}"), &new.resolve.worlds[id].stability, &since);
        }
    }
    found
}

/// Notes an addition that is not marked `@since(version = <since>)`.
fn unmarked(found: &mut Vec<String>, what: &str, stability: &Stability, since: &semver::Version) {
    match stability {
        Stability::Stable { since: marked, .. } if marked == since => {}
        Stability::Stable { since: marked, .. } => {
            found.push(format!("{what}: added in {since} but marked @since({marked})"))
        }
        _ => found.push(format!("{what}: added in {since} without @since(version = {since})")),
    }
}

/// A world's imports or exports: each one's name, what it is, and its
/// `@since` (items an `include` brought are listed as the world's own).
fn items(resolve: &Resolve, of: &wit_parser::IndexMap<WorldKey, WorldItem>) -> Vec<(String, String, Stability)> {
    of.iter()
        .map(|(key, item)| {
            let name = match key {
                WorldKey::Name(name) => name.clone(),
                WorldKey::Interface(id) => interface_name(resolve, *id),
            };
            let what = match item {
                WorldItem::Interface { id, .. } => format!("interface {}", interface_name(resolve, *id)),
                WorldItem::Function(f) => signature(resolve, f),
                WorldItem::Type { id, .. } => render_def(resolve, *id),
            };
            (name, what, item.stability(resolve).clone())
        })
        .collect()
}

/// `store` for the package's own interfaces, `wasi:io/streams` for others
/// (without a version: the two texts differ in theirs).
fn interface_name(resolve: &Resolve, id: wit_parser::InterfaceId) -> String {
    let interface = &resolve.interfaces[id];
    let name = interface.name.clone().unwrap_or_else(|| "<anonymous>".into());
    match interface.package.map(|p| &resolve.packages[p].name) {
        Some(pkg) if pkg.namespace == "crm" && pkg.name == "plugin" => name,
        Some(pkg) => format!("{}:{}/{name}", pkg.namespace, pkg.name),
        None => name,
    }
}

fn signature(resolve: &Resolve, f: &Function) -> String {
    let params: Vec<String> = f.params.iter().map(|p| format!("{}: {}", p.name, render(resolve, &p.ty))).collect();
    match &f.result {
        Some(result) => format!("func({}) -> {}", params.join(", "), render(resolve, result)),
        None => format!("func({})", params.join(", ")),
    }
}

fn render(resolve: &Resolve, ty: &Type) -> String {
    match ty {
        Type::Id(id) => render_def(resolve, *id),
        primitive => format!("{primitive:?}").to_lowercase(),
    }
}

/// A type by its structure, whatever its name: two texts agree on a type
/// when a component built against one reads the other's values.
fn render_def(resolve: &Resolve, id: TypeId) -> String {
    let def = &resolve.types[id];
    let all = |types: &mut dyn Iterator<Item = &Type>| types.map(|t| render(resolve, t)).collect::<Vec<_>>().join(", ");
    let maybe = |t: &Option<Type>| t.as_ref().map_or("_".to_string(), |t| render(resolve, t));
    match &def.kind {
        TypeDefKind::Record(r) => {
            let fields: Vec<String> =
                r.fields.iter().map(|f| format!("{}: {}", f.name, render(resolve, &f.ty))).collect();
            format!("record {{ {} }}", fields.join(", "))
        }
        TypeDefKind::Variant(v) => {
            let cases: Vec<String> = v
                .cases
                .iter()
                .map(|c| c.ty.as_ref().map_or(c.name.clone(), |t| format!("{}({})", c.name, render(resolve, t))))
                .collect();
            format!("variant {{ {} }}", cases.join(", "))
        }
        TypeDefKind::Enum(e) => {
            format!("enum {{ {} }}", e.cases.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "))
        }
        TypeDefKind::Flags(f) => {
            format!("flags {{ {} }}", f.flags.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", "))
        }
        TypeDefKind::Tuple(t) => format!("tuple<{}>", all(&mut t.types.iter())),
        TypeDefKind::Option(t) => format!("option<{}>", render(resolve, t)),
        TypeDefKind::Result(r) => format!("result<{}, {}>", maybe(&r.ok), maybe(&r.err)),
        TypeDefKind::List(t) => format!("list<{}>", render(resolve, t)),
        TypeDefKind::Type(t) => render(resolve, t),
        TypeDefKind::Resource => format!("resource {}", def.name.as_deref().unwrap_or("?")),
        TypeDefKind::Handle(Handle::Own(r)) => format!("own<{}>", render_def(resolve, *r)),
        TypeDefKind::Handle(Handle::Borrow(r)) => format!("borrow<{}>", render_def(resolve, *r)),
        other => format!("{other:?}"),
    }
}

/// The whole rule between a published text and a later one: the same
/// version must be the same text; a later minor version only adds; a later
/// major version may change anything. Empty when `new` keeps it.
pub fn check(published: (&str, &Text), new: (&str, &Text)) -> Vec<String> {
    let (old_v, new_v) = (published.1.version(), new.1.version());
    if new_v < old_v {
        return vec![format!("version {new_v} is below the published {old_v}")];
    }
    if new_v == old_v {
        if published.0 == new.0 {
            return Vec::new();
        }
        return vec![format!(
            "{new_v} is published and frozen: a change is a new version, with @since on what it adds"
        )];
    }
    if new_v.major > old_v.major {
        return Vec::new();
    }
    drift(published.1, new.1)
}
