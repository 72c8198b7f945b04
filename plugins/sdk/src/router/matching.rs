//! Which declared route a request's method and path name: the host's own
//! rule (`host/server/src/http/router.rs`), so that a component finds the
//! route the host matched before calling it.
//!
//! - A pattern (`/contacts/{id}`) and a path are compared segment by
//!   segment; empty segments are ignored (`/contacts/` is `/contacts`).
//! - A literal segment equals the path's segment as sent (not decoded); a
//!   `{name}` segment takes any segment, percent-decoded, and a segment that
//!   does not decode to UTF-8 matches nothing.
//! - Patterns without parameters are tried first, for every method: a path
//!   one of them matches is that resource only (`GET /shipments/rates` with
//!   only `POST /shipments/rates` declared is a 405 from the host, not a
//!   shipment id). Then the others, in the order declared: the first whose
//!   method and pattern match.
//!
//! Std only, on purpose: the host's router tests include this file
//! (`#[path]`) and check that both find the same route for the same table.

/// Path parameters, in pattern order, decoded.
pub type Params = Vec<(String, String)>;

/// What [`find`] found in a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup<'t> {
    /// The index of the route in the table, and the path's parameters.
    Found(usize, Params),
    /// The path names a declared resource whose routes have other methods:
    /// these, once each, in table order (the host answers 405 with them).
    MethodNotAllowed(Vec<&'t str>),
    NotFound,
}

/// The route of `table` (each entry's method and pattern through `key`) that
/// `method` and `path` name, as the host finds it.
pub fn find<'t, R>(table: &'t [R], method: &str, path: &str, key: impl Fn(&'t R) -> (&'t str, &'t str)) -> Lookup<'t> {
    for literal in [true, false] {
        let mut allowed: Vec<&'t str> = Vec::new();
        for (index, (m, pattern)) in table.iter().map(&key).enumerate() {
            if is_literal(pattern) != literal {
                continue;
            }
            if let Some(params) = matches(pattern, path) {
                if m == method {
                    return Lookup::Found(index, params);
                }
                if !allowed.contains(&m) {
                    allowed.push(m);
                }
            }
        }
        if !allowed.is_empty() {
            return Lookup::MethodNotAllowed(allowed);
        }
    }
    Lookup::NotFound
}

/// The path parameters when `path` matches `pattern`.
pub fn matches(pattern: &str, path: &str) -> Option<Params> {
    let mut params = Vec::new();
    let mut parts = segments(path);
    for segment in segments(pattern) {
        let part = parts.next()?;
        match parameter(segment) {
            Some(name) => params.push((name.to_string(), percent_decode(part)?)),
            None if segment == part => {}
            None => return None,
        }
    }
    parts.next().is_none().then_some(params)
}

/// Whether `pattern` has no `{name}` segment.
pub fn is_literal(pattern: &str) -> bool {
    segments(pattern).all(|s| parameter(s).is_none())
}

/// `pattern` with its parameters' names erased: two patterns of one shape
/// (`/contacts/{id}`, `/contacts/{key}`) and one method are one route, which
/// the host refuses to be declared twice.
pub fn shape(pattern: &str) -> Vec<Option<&str>> {
    segments(pattern).map(|s| if parameter(s).is_some() { None } else { Some(s) }).collect()
}

/// The name of a `{name}` segment.
fn parameter(segment: &str) -> Option<&str> {
    segment.strip_prefix('{').and_then(|s| s.strip_suffix('}'))
}

fn segments(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|s| !s.is_empty())
}

/// `%XX` → the byte `XX` (a `%` not followed by two hex digits stays), then
/// UTF-8 or nothing: what the host's `percent_encoding::percent_decode_str(..)
/// .decode_utf8()` does.
fn percent_decode(segment: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(segment.len());
    let mut rest = segment.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        rest = tail;
        if byte == b'%'
            && let [high, low, after @ ..] = tail
            && let (Some(high), Some(low)) = (hex(*high), hex(*low))
        {
            bytes.push(high << 4 | low);
            rest = after;
            continue;
        }
        bytes.push(byte);
    }
    String::from_utf8(bytes).ok()
}

fn hex(digit: u8) -> Option<u8> {
    char::from(digit).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table<'t>(routes: &'t [(&'t str, &'t str)]) -> impl Fn(&str, &str) -> Lookup<'t> {
        move |method, path| find(routes, method, path, |(m, p)| (*m, *p))
    }

    fn found(index: usize, params: &[(&str, &str)]) -> Lookup<'static> {
        Lookup::Found(index, params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    #[test]
    fn params_are_extracted_and_decoded() {
        let p = "/contacts/{id}";
        assert_eq!(matches(p, "/contacts/abc"), Some(vec![("id".into(), "abc".into())]));
        assert_eq!(matches(p, "/contacts/a%20b"), Some(vec![("id".into(), "a b".into())]));
        assert_eq!(matches(p, "/contacts/%C3%B1"), Some(vec![("id".into(), "ñ".into())]));
        assert_eq!(matches(p, "/contacts/100%"), Some(vec![("id".into(), "100%".into())]), "a lone % stays");
        assert_eq!(matches(p, "/contacts/%zz%4"), Some(vec![("id".into(), "%zz%4".into())]));
        assert_eq!(matches(p, "/contacts/%FF"), None, "not UTF-8: no match, as the host's");
        assert_eq!(matches(p, "/contacts"), None);
        assert_eq!(matches(p, "/contacts/abc/x"), None);
        let two = "/forms/{id}/submissions/{n}";
        assert_eq!(
            matches(two, "/forms/f1/submissions/2"),
            Some(vec![("id".into(), "f1".into()), ("n".into(), "2".into())])
        );
    }

    #[test]
    fn literals_are_compared_as_sent_and_empty_segments_ignored() {
        assert_eq!(matches("/contacts", "/contacts/"), Some(vec![]));
        assert_eq!(matches("/contacts", "//contacts"), Some(vec![]));
        assert_eq!(matches("/admin/contacts/bulk", "/admin//contacts/bulk/"), Some(vec![]));
        assert_eq!(matches("/contacts", "/cont%61cts"), None, "a literal is not decoded");
        assert_eq!(matches("/contacts", "/Contacts"), None);
        assert_eq!(matches("/contacts/{id}", "/contacts//abc"), Some(vec![("id".into(), "abc".into())]));
    }

    /// The host's `literals_win_and_methods_are_told_apart`, on this matcher.
    #[test]
    fn literals_win_and_methods_are_told_apart() {
        let routes = [("GET", "/contacts/{id}"), ("GET", "/contacts/search"), ("POST", "/contacts/rates")];
        let find = table(&routes);
        assert_eq!(find("GET", "/contacts/search"), found(1, &[]));
        assert_eq!(find("GET", "/contacts/x"), found(0, &[("id", "x")]));
        assert_eq!(find("POST", "/contacts/x"), Lookup::MethodNotAllowed(vec!["GET"]));
        assert_eq!(find("GET", "/nope"), Lookup::NotFound);
        assert_eq!(find("GET", "/contacts/rates"), Lookup::MethodNotAllowed(vec!["POST"]));
    }

    #[test]
    fn among_parameters_the_first_declared_wins_and_methods_are_exact() {
        let routes = [("GET", "/a/{x}/c"), ("GET", "/a/b/{y}"), ("PUT", "/a/{x}/c"), ("PUT", "/a/{x}/c")];
        let find = table(&routes);
        assert_eq!(find("GET", "/a/b/c"), found(0, &[("x", "b")]));
        assert_eq!(find("GET", "/a/b/d"), found(1, &[("y", "d")]));
        assert_eq!(find("PUT", "/a/b/c"), found(2, &[("x", "b")]));
        assert_eq!(find("DELETE", "/a/b/c"), Lookup::MethodNotAllowed(vec!["GET", "PUT"]), "each method once");
        assert_eq!(find("get", "/a/b/c"), Lookup::MethodNotAllowed(vec!["GET", "PUT"]), "methods are exact");
    }

    #[test]
    fn shapes_erase_parameter_names() {
        assert_eq!(shape("/contacts/{id}"), shape("/contacts/{key}"));
        assert_ne!(shape("/contacts/{id}"), shape("/contacts/search"));
        assert_eq!(shape("/contacts/"), shape("/contacts"));
        assert!(is_literal("/shipments/rates") && !is_literal("/shipments/{id}"));
    }
}
