//! Path routing: patterns like `/contacts/{id}` matched segment by segment.
//!
//! A component is not told which of its routes matched: the guest SDK finds
//! it again by this rule (`plugins/sdk/src/router/matching.rs`), so a change
//! of the rule here is one there too, which
//! `tests::the_guest_sdk_finds_what_the_host_finds` makes fail until it is.

use std::sync::Arc;

use http::Method;

/// One segment of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Param(String),
}

/// A compiled path pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    segments: Vec<Segment>,
    /// The pattern as written (`/contacts/{id}`): what logs and metrics name.
    text: Arc<str>,
}

impl Pattern {
    /// `"/contacts/{id}"` → literal `contacts`, parameter `id`.
    pub fn parse(text: &str) -> Pattern {
        let segments = split(text)
            .map(|s| match s.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(name) => Segment::Param(name.to_string()),
                None => Segment::Literal(s.to_string()),
            })
            .collect();
        Pattern { segments, text: text.into() }
    }

    /// The pattern with parameter names erased.
    fn shape(&self) -> Vec<Option<&str>> {
        self.segments
            .iter()
            .map(|s| match s {
                Segment::Literal(l) => Some(l.as_str()),
                Segment::Param(_) => None,
            })
            .collect()
    }

    /// The path parameters when `path` matches.
    pub fn matches(&self, path: &str) -> Option<Params> {
        let mut params = Vec::new();
        let mut parts = split(path);
        for segment in &self.segments {
            let part = parts.next()?;
            match segment {
                Segment::Literal(lit) if lit == part => {}
                Segment::Literal(_) => return None,
                Segment::Param(name) => {
                    let value = percent_decode(part)?;
                    params.push((name.clone(), value));
                }
            }
        }
        parts.next().is_none().then_some(params)
    }
}

/// Path parameters, in pattern order.
pub type Params = Vec<(String, String)>;

fn split(path: &str) -> impl Iterator<Item = &str> {
    path.split('/').filter(|s| !s.is_empty())
}

fn percent_decode(segment: &str) -> Option<String> {
    percent_encoding::percent_decode_str(segment).decode_utf8().ok().map(|s| s.into_owned())
}

/// What a lookup found.
pub enum Match<'r, T> {
    /// The route's target, the path's parameters, and the pattern as written.
    Found(&'r T, Params, Arc<str>),
    /// The path exists with other methods: these (an `Allow` header's list).
    MethodNotAllowed(Vec<Method>),
    NotFound,
}

/// A route table.
pub struct Router<T> {
    routes: Vec<(Method, Pattern, T)>,
}

impl<T> Default for Router<T> {
    fn default() -> Self {
        Router { routes: Vec::new() }
    }
}

impl<T> Router<T> {
    pub fn add(&mut self, method: Method, pattern: &str, target: T) {
        self.routes.push((method, Pattern::parse(pattern), target));
    }

    /// Adds a route unless one with the same method and shape exists
    /// (`/contacts/{id}` and `/contacts/{key}` have one shape).
    pub fn try_add(&mut self, method: Method, pattern: &str, target: T) -> Result<(), String> {
        let new = Pattern::parse(pattern);
        if self.routes.iter().any(|(m, p, _)| *m == method && p.shape() == new.shape()) {
            return Err(format!("the route {method} {pattern} is declared twice"));
        }
        self.routes.push((method, new, target));
        Ok(())
    }

    /// Every route, as `(method, pattern as written, target)`, in the order added.
    pub fn entries(&self) -> impl Iterator<Item = (&Method, &str, &T)> {
        self.routes.iter().map(|(m, p, t)| (m, &*p.text, t))
    }

    /// Finds the route for `method` and `path`. A path that a literal pattern
    /// matches is that literal resource only: `/shipments/rates` beats
    /// `/shipments/{id}` for every method, so `GET /shipments/rates` is a 405
    /// (`Allow: POST`), not a shipment id.
    pub fn find(&self, method: &Method, path: &str) -> Match<'_, T> {
        let is_literal = |p: &Pattern| p.segments.iter().all(|s| matches!(s, Segment::Literal(_)));
        for literal in [true, false] {
            let mut allowed = Vec::new();
            for (m, pattern, target) in self.routes.iter().filter(|(_, p, _)| is_literal(p) == literal) {
                if let Some(params) = pattern.matches(path) {
                    if m == method {
                        return Match::Found(target, params, pattern.text.clone());
                    }
                    if !allowed.contains(m) {
                        allowed.push(m.clone());
                    }
                }
            }
            if !allowed.is_empty() {
                return Match::MethodNotAllowed(allowed);
            }
        }
        Match::NotFound
    }
}

/// The guest SDK's matcher: a component finds again, over its own routes,
/// the route this router matched (it is not told which), so the two must
/// agree; `the_guest_sdk_finds_what_the_host_finds` checks they do.
#[cfg(test)]
#[path = "../../../../plugins/sdk/src/router/matching.rs"]
mod sdk_matching;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_extracted_and_decoded() {
        let p = Pattern::parse("/contacts/{id}");
        assert_eq!(p.matches("/contacts/abc"), Some(vec![("id".into(), "abc".into())]));
        assert_eq!(p.matches("/contacts/a%20b"), Some(vec![("id".into(), "a b".into())]));
        assert_eq!(p.matches("/contacts"), None);
        assert_eq!(p.matches("/contacts/abc/x"), None);
    }

    #[test]
    fn literals_win_and_methods_are_told_apart() {
        let mut r = Router::default();
        r.add(Method::GET, "/contacts/{id}", 1);
        r.add(Method::GET, "/contacts/search", 2);
        assert!(matches!(r.find(&Method::GET, "/contacts/search"), Match::Found(2, _, _)));
        assert!(matches!(r.find(&Method::GET, "/contacts/x"), Match::Found(1, _, _)));
        assert!(matches!(r.find(&Method::POST, "/contacts/x"), Match::MethodNotAllowed(m) if m == [Method::GET]));
        assert!(matches!(r.find(&Method::GET, "/nope"), Match::NotFound));
        r.add(Method::POST, "/contacts/rates", 3);
        assert!(matches!(r.find(&Method::GET, "/contacts/rates"), Match::MethodNotAllowed(m) if m == [Method::POST]));
    }

    #[test]
    fn one_shape_is_declared_once() {
        let mut r = Router::default();
        r.try_add(Method::GET, "/contacts/{id}", 1).unwrap();
        assert!(r.try_add(Method::GET, "/contacts/{key}", 2).is_err());
        assert!(r.try_add(Method::PUT, "/contacts/{id}", 3).is_ok());
    }

    /// The guest SDK's `find` (`plugins/sdk/src/router/matching.rs`) and
    /// this router's, over one table and every method on paths that test
    /// each rule: literals before parameters for every method, then the
    /// first declared; empty segments; literals as sent; parameters
    /// decoded, and no match when one is not UTF-8.
    #[test]
    fn the_guest_sdk_finds_what_the_host_finds() {
        #[derive(Debug, PartialEq)]
        enum Seen {
            Found(usize, Params),
            NotAllowed(Vec<String>),
            NotFound,
        }
        let table = [
            ("GET", "/contacts"),
            ("POST", "/contacts"),
            ("GET", "/contacts/{id}"),
            ("PUT", "/contacts/{id}"),
            ("GET", "/contacts/search"),
            ("POST", "/shipments/rates"),
            ("GET", "/shipments/{id}"),
            ("POST", "/shipments/{id}/track"),
            ("GET", "/a/{x}/c"),
            ("GET", "/a/b/{y}"),
            ("PUT", "/a/{x}/c"),
            ("GET", "/forms/{id}/submissions/{n}"),
            ("POST", "/public/forms/submit/{id}"),
            ("OPTIONS", "/public/forms/submit/{id}"),
            ("PATCH", "/admin/forms/{id}"),
        ];
        let mut host = Router::default();
        for (i, (method, pattern)) in table.iter().enumerate() {
            host.add(method.parse().unwrap(), pattern, i);
        }
        let paths = [
            "",
            "/",
            "/contacts",
            "/contacts/",
            "//contacts",
            "/Contacts",
            "/cont%61cts",
            "/contacts/abc",
            "/contacts//abc/",
            "/contacts/a%20b",
            "/contacts/%C3%B1",
            "/contacts/%FF",
            "/contacts/%zz",
            "/contacts/100%",
            "/contacts/search",
            "/contacts/abc/x",
            "/shipments/rates",
            "/shipments/x",
            "/shipments/x/track",
            "/a/b/c",
            "/a/b/d",
            "/a/x/c",
            "/forms/f/submissions/2",
            "/public/forms/submit/f1",
            "/admin/forms/f1",
            "/nope",
        ];
        for method in ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] {
            for path in paths {
                let by_host = match host.find(&method.parse().unwrap(), path) {
                    Match::Found(i, params, _) => Seen::Found(*i, params),
                    Match::MethodNotAllowed(allowed) => {
                        Seen::NotAllowed(allowed.iter().map(|m| m.to_string()).collect())
                    }
                    Match::NotFound => Seen::NotFound,
                };
                let by_sdk = match sdk_matching::find(&table, method, path, |(m, p)| (*m, *p)) {
                    sdk_matching::Lookup::Found(i, params) => Seen::Found(i, params),
                    sdk_matching::Lookup::MethodNotAllowed(allowed) => {
                        Seen::NotAllowed(allowed.iter().map(|m| m.to_string()).collect())
                    }
                    sdk_matching::Lookup::NotFound => Seen::NotFound,
                };
                assert_eq!(by_sdk, by_host, "{method} {path:?}");
            }
        }
    }
}
