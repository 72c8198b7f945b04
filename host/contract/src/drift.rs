//! The rule that keeps shipped components loading: a minor version of
//! `crm:plugin` only adds to the one before it.
//!
//! [`conflicts`] compares two texts item by item, types by their structure
//! (a record's fields, a variant's cases, down to the primitives), and names
//! each thing the newer text removed or changed; [`drift`] adds each
//! addition to something that existed that lacks `@since`. Interfaces,
//! functions, types and worlds may be added, and a world may gain imports
//! and exports; nothing may change or go. A new major version may change
//! anything: the host then serves the old one beside it.

use wit_parser::{Function, Handle, Resolve, Stability, Type, TypeDefKind, TypeId, WorldItem, WorldKey};

use crate::Text;

/// What `new` removed or changed of `old`: one line each, naming the
/// interface or world, the item, and what each side has.
pub fn conflicts(old: &Text, new: &Text) -> Vec<String> {
    walk(old, new, false)
}

/// [`conflicts`], and each addition to what `old` had that is not marked
/// `@since` `new`'s version.
pub fn drift(old: &Text, new: &Text) -> Vec<String> {
    walk(old, new, true)
}

fn walk(old: &Text, new: &Text, additions: bool) -> Vec<String> {
    let mut found = Vec::new();
    let (o, n) = (&old.label, &new.label);
    let (old_pkg, new_pkg) = (&old.resolve.packages[old.package], &new.resolve.packages[new.package]);
    let since = new.version();
    let added = |what: String, stability: &Stability, found: &mut Vec<String>| {
        if additions {
            unmarked(found, &what, stability, &since);
        }
    };
    for (name, &old_id) in &old_pkg.interfaces {
        let Some(&new_id) = new_pkg.interfaces.get(name) else {
            found.push(format!("interface {name}: in {o}, not in {n}"));
            continue;
        };
        let (was, now) = (&old.resolve.interfaces[old_id], &new.resolve.interfaces[new_id]);
        for (ty, &old_ty) in &was.types {
            match now.types.get(ty) {
                None => found.push(format!("{name}.{ty}: a type in {o}, not in {n}")),
                Some(&new_ty) => found.extend(
                    type_change(&old.resolve, old_ty, &new.resolve, new_ty)
                        .into_iter()
                        .map(|change| format!("{name}.{ty}: {}", change.said(o, n))),
                ),
            }
        }
        for (f, old_f) in &was.functions {
            match now.functions.get(f) {
                None => found.push(format!("{name}.{f}: a function in {o}, not in {n}")),
                Some(new_f) => {
                    if let Some(change) = function_change(&old.resolve, old_f, &new.resolve, new_f) {
                        found.push(format!("{name}.{f}: {}", change.said(o, n)));
                    }
                }
            }
        }
        for (ty, &id) in now.types.iter().filter(|(ty, _)| !was.types.contains_key(*ty)) {
            added(format!("{name}.{ty}"), &new.resolve.types[id].stability, &mut found);
        }
        for (f, func) in now.functions.iter().filter(|(f, _)| !was.functions.contains_key(*f)) {
            added(format!("{name}.{f}"), &func.stability, &mut found);
        }
    }
    for (name, &id) in new_pkg.interfaces.iter().filter(|(name, _)| !old_pkg.interfaces.contains_key(*name)) {
        added(format!("interface {name}"), &new.resolve.interfaces[id].stability, &mut found);
    }
    for (name, &old_id) in &old_pkg.worlds {
        let Some(&new_id) = new_pkg.worlds.get(name) else {
            found.push(format!("world {name}: in {o}, not in {n}"));
            continue;
        };
        let (was, now) = (&old.resolve.worlds[old_id], &new.resolve.worlds[new_id]);
        for (side, a, b) in [("import", &was.imports, &now.imports), ("export", &was.exports, &now.exports)] {
            let (a, b) = (items(&old.resolve, a), items(&new.resolve, b));
            for (key, item, _) in &a {
                match b.iter().find(|(k, _, _)| k == key) {
                    None => found.push(format!("world {name}: {side} {key} in {o}, not in {n}")),
                    Some((_, now, _)) if now != item => {
                        found.push(format!("world {name}: {side} {key} is {item} in {o}, {now} in {n}"))
                    }
                    Some(_) => {}
                }
            }
            for (key, _, stability) in b.iter().filter(|(key, _, _)| !a.iter().any(|(k, _, _)| k == key)) {
                added(format!("world {name}: {side} {key}"), stability, &mut found);
            }
        }
    }
    for (name, &id) in new_pkg.worlds.iter().filter(|(name, _)| !old_pkg.worlds.contains_key(*name)) {
        added(format!("world {name}"), &new.resolve.worlds[id].stability, &mut found);
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
                WorldItem::Function(f) => Spell::structure(resolve).signature(f),
                WorldItem::Type { id, .. } => Spell::structure(resolve).def(*id),
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

/// One difference: what the older side has and what the newer one has
/// (none: it has no such thing).
struct Change {
    what: String,
    old: Option<String>,
    new: Option<String>,
}

impl Change {
    /// `field x: u32 in <o>, not in <n>`, `field x is u32 in <o>, u64 in <n>`.
    fn said(&self, o: &str, n: &str) -> String {
        let what = &self.what;
        let one = |ty: &str| match (what.is_empty(), ty.is_empty()) {
            (true, _) => ty.to_string(),
            (false, true) => what.clone(),
            (false, false) => format!("{what}: {ty}"),
        };
        match (&self.old, &self.new) {
            (Some(a), Some(b)) if what.is_empty() => format!("{a} in {o}, {b} in {n}"),
            (Some(a), Some(b)) => format!("{what} is {a} in {o}, {b} in {n}"),
            (Some(a), None) => format!("{} in {o}, not in {n}", one(a)),
            (None, Some(b)) => format!("{} in {n}, not in {o}", one(b)),
            (None, None) => what.clone(),
        }
    }
}

/// How a named type changed, member by member where both are records,
/// variants, enums or flags (`field max-body-bytes: option<u32> in ..., not
/// in ...`). A type differs only if its structure does: a change inside a
/// type it names is told at that type, once, and a component whose types
/// carry no names is compared by structure alone.
fn type_change(old: &Resolve, a: TypeId, new: &Resolve, b: TypeId) -> Vec<Change> {
    if Spell::structure(old).def(a) == Spell::structure(new).def(b) {
        return Vec::new();
    }
    let (was, now) = (Spell::names(old).def(a), Spell::names(new).def(b));
    if was == now {
        return Vec::new();
    }
    // Member by member only between two of one kind (a record and a record).
    let (Some((kind, ma)), Some((kind_b, mb))) = (members(old, a), members(new, b)) else {
        return vec![Change { what: String::new(), old: Some(was), new: Some(now) }];
    };
    if kind != kind_b {
        return vec![Change { what: String::new(), old: Some(was), new: Some(now) }];
    }
    let mut changes = Vec::new();
    for (name, ty) in &ma {
        match mb.iter().find(|(n, _)| n == name) {
            None => changes.push(Change { what: format!("{kind} {name}"), old: Some(ty.clone()), new: None }),
            Some((_, other)) if other != ty => {
                changes.push(Change { what: format!("{kind} {name}"), old: Some(ty.clone()), new: Some(other.clone()) })
            }
            Some(_) => {}
        }
    }
    for (name, ty) in mb.iter().filter(|(name, _)| !ma.iter().any(|(n, _)| n == name)) {
        changes.push(Change { what: format!("{kind} {name}"), old: None, new: Some(ty.clone()) });
    }
    if changes.is_empty() {
        changes.push(Change { what: format!("the order of its {kind}s"), old: Some(was), new: Some(now) });
    }
    changes
}

/// How a function's signature changed, if its structure did (a change inside
/// a type it names is told at that type).
fn function_change(old: &Resolve, a: &Function, new: &Resolve, b: &Function) -> Option<Change> {
    if Spell::structure(old).signature(a) == Spell::structure(new).signature(b) {
        return None;
    }
    let (was, now) = (Spell::names(old).signature(a), Spell::names(new).signature(b));
    (was != now).then_some(Change { what: String::new(), old: Some(was), new: Some(now) })
}

/// The members of a record, variant, enum or flags, each with its type as
/// [`Spell::names`] spells it (empty for a case without one).
fn members(resolve: &Resolve, id: TypeId) -> Option<(&'static str, Vec<(String, String)>)> {
    let spell = Spell::names(resolve);
    Some(match &resolve.types[id].kind {
        TypeDefKind::Record(r) => ("field", r.fields.iter().map(|f| (f.name.clone(), spell.ty(&f.ty))).collect()),
        TypeDefKind::Variant(v) => {
            let ty = |t: &Option<Type>| t.as_ref().map_or(String::new(), |t| spell.ty(t));
            ("case", v.cases.iter().map(|c| (c.name.clone(), ty(&c.ty))).collect())
        }
        TypeDefKind::Enum(e) => ("case", e.cases.iter().map(|c| (c.name.clone(), String::new())).collect()),
        TypeDefKind::Flags(f) => ("flag", f.flags.iter().map(|f| (f.name.clone(), String::new())).collect()),
        _ => return None,
    })
}

/// Spells types out: by structure alone, whatever their names (two texts
/// agree on a type when a component built against one reads the other's
/// values), or with the named types they use by name.
struct Spell<'a> {
    resolve: &'a Resolve,
    by_name: bool,
}

impl<'a> Spell<'a> {
    fn structure(resolve: &'a Resolve) -> Spell<'a> {
        Spell { resolve, by_name: false }
    }

    fn names(resolve: &'a Resolve) -> Spell<'a> {
        Spell { resolve, by_name: true }
    }

    fn signature(&self, f: &Function) -> String {
        let params: Vec<String> = f.params.iter().map(|p| format!("{}: {}", p.name, self.ty(&p.ty))).collect();
        match &f.result {
            Some(result) => format!("func({}) -> {}", params.join(", "), self.ty(result)),
            None => format!("func({})", params.join(", ")),
        }
    }

    fn ty(&self, ty: &Type) -> String {
        match ty {
            Type::Id(id) => match &self.resolve.types[*id].name {
                Some(name) if self.by_name => name.clone(),
                _ => self.def(*id),
            },
            primitive => format!("{primitive:?}").to_lowercase(),
        }
    }

    /// A type's definition (a named one's own, not its name).
    fn def(&self, id: TypeId) -> String {
        let def = &self.resolve.types[id];
        let maybe = |t: &Option<Type>| t.as_ref().map_or("_".to_string(), |t| self.ty(t));
        match &def.kind {
            TypeDefKind::Record(r) => {
                let fields: Vec<String> = r.fields.iter().map(|f| format!("{}: {}", f.name, self.ty(&f.ty))).collect();
                format!("record {{ {} }}", fields.join(", "))
            }
            TypeDefKind::Variant(v) => {
                let cases: Vec<String> = v
                    .cases
                    .iter()
                    .map(|c| c.ty.as_ref().map_or(c.name.clone(), |t| format!("{}({})", c.name, self.ty(t))))
                    .collect();
                format!("variant {{ {} }}", cases.join(", "))
            }
            TypeDefKind::Enum(e) => {
                format!("enum {{ {} }}", e.cases.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(", "))
            }
            TypeDefKind::Flags(f) => {
                format!("flags {{ {} }}", f.flags.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", "))
            }
            TypeDefKind::Tuple(t) => {
                format!("tuple<{}>", t.types.iter().map(|t| self.ty(t)).collect::<Vec<_>>().join(", "))
            }
            TypeDefKind::Option(t) => format!("option<{}>", self.ty(t)),
            TypeDefKind::Result(r) => format!("result<{}, {}>", maybe(&r.ok), maybe(&r.err)),
            TypeDefKind::List(t) => format!("list<{}>", self.ty(t)),
            TypeDefKind::Type(t) => self.ty(t),
            TypeDefKind::Resource => format!("resource {}", def.name.as_deref().unwrap_or("?")),
            TypeDefKind::Handle(Handle::Own(r)) => format!("own<{}>", self.def(*r)),
            TypeDefKind::Handle(Handle::Borrow(r)) => format!("borrow<{}>", self.def(*r)),
            other => format!("{other:?}"),
        }
    }
}

/// The whole rule between a published text and a later one: the same
/// version must be the same text; a later minor version only adds; a later
/// major version may change anything. Empty when `new` keeps it.
/// `published` and `new` are each a text's source and the text it resolves to.
pub fn check(published: (&str, &Text), new: (&str, &Text)) -> Vec<String> {
    let (old_v, new_v) = (published.1.version(), new.1.version());
    if new_v < old_v {
        return vec![format!("{} is {new_v}, below the published {old_v}", new.1.label)];
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
