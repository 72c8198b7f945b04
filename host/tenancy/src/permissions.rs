//! Permission names and what grants what.
//!
//! A permission is `resource:action`. A token holding `*` has every permission;
//! one holding `resource:*` has every permission of that resource.

/// Whether the permissions `held` grant `required`.
pub fn grants(held: &[String], required: &str) -> bool {
    let resource = required.split_once(':').map_or(required, |(r, _)| r);
    held.iter().any(|p| p == "*" || p == required || p.strip_suffix(":*").is_some_and(|r| r == resource))
}

/// Whether `name` is a well-formed permission: `*`, `resource:action` or `resource:*`.
pub fn is_valid(name: &str) -> bool {
    let word =
        |s: &str| !s.is_empty() && s.len() <= 64 && s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_' || b == b'-');
    name == "*" || name.split_once(':').is_some_and(|(r, a)| word(r) && (a == "*" || word(a)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(p: &[&str]) -> Vec<String> {
        p.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn exact_star_and_resource_star() {
        assert!(grants(&held(&["contacts:read"]), "contacts:read"));
        assert!(!grants(&held(&["contacts:read"]), "contacts:write"));
        assert!(grants(&held(&["*"]), "shipments:write"));
        assert!(grants(&held(&["contacts:*"]), "contacts:write"));
        assert!(!grants(&held(&["contacts:*"]), "shipments:read"));
        assert!(!grants(&held(&["contacts"]), "contacts:read"));
    }

    #[test]
    fn validity() {
        for ok in ["*", "contacts:read", "contacts:*", "agent_context:read"] {
            assert!(is_valid(ok), "{ok}");
        }
        for bad in ["", "contacts", ":read", "Contacts:read", "a:b:c", "*:read"] {
            assert!(!is_valid(bad), "{bad}");
        }
    }
}
