//! Where an outbound webhook may go: customers' systems on the public
//! internet, never our own network (SSRF).
//!
//! A URL is allowed when its scheme is `https` and every address its host
//! resolves to is public: not loopback, private, link-local (cloud metadata
//! `169.254.169.254`), CGNAT, multicast, broadcast, unspecified,
//! documentation or reserved ranges, IPv6 unique-local, nor an IPv4-mapped,
//! -compatible, 6to4 or NAT64 form of those. An operator's `CRM_WEBHOOK_ALLOW_PRIVATE=true`
//! lifts the address and scheme rules (tests, private deployments).
//!
//! The rules are checked when a URL is saved (400 `WEBHOOK_URL_NOT_ALLOWED`);
//! delivery must check the address it actually connects to again, so a name
//! that resolves elsewhere later (DNS rebinding) cannot slip through.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use url::Url;

/// Longest webhook URL.
pub const MAX_URL: usize = 2000;
/// How long resolving a webhook's host may take (a save waits for it).
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(2);

/// The operator's choice: the rules, or none (`CRM_WEBHOOK_ALLOW_PRIVATE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    pub allow_private: bool,
}

/// `url` parsed, when its form is allowed (scheme, host, size); the
/// addresses are checked apart ([`Policy::check_address`]).
pub fn parse(policy: Policy, text: &str) -> Result<Url, String> {
    if text.len() > MAX_URL {
        return Err(format!("the URL is longer than {MAX_URL} bytes"));
    }
    let url = Url::parse(text).map_err(|e| format!("not a URL: {e}"))?;
    match url.scheme() {
        "https" => {}
        "http" if policy.allow_private => {}
        other => return Err(format!("the scheme must be https, not {other}")),
    }
    if url.host().is_none() {
        return Err("the URL has no host".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("the URL must not carry credentials".into());
    }
    Ok(url)
}

/// A URL as a log line may show it: its scheme, host, port and path, never
/// its credentials, query or fragment, where a customer's URL may carry a
/// token (`sender.rs`).
pub fn for_logs(text: &str) -> String {
    let Ok(url) = Url::parse(text) else { return "(not a URL)".into() };
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    format!("{}://{}{port}{}", url.scheme(), url.host_str().unwrap_or_default(), url.path())
}

impl Policy {
    /// Whether a webhook may connect to `ip`.
    pub fn check_address(self, ip: IpAddr) -> Result<(), String> {
        if self.allow_private || is_public(ip) { Ok(()) } else { Err(format!("{ip} is not a public address")) }
    }

    /// Parses `text` and resolves its host: every address must be allowed.
    pub async fn check(self, text: &str) -> Result<Url, String> {
        let url = parse(self, text)?;
        let host = url.host_str().unwrap_or_default().trim_start_matches('[').trim_end_matches(']').to_string();
        let port = url.port_or_known_default().unwrap_or(443);
        let addresses: Vec<IpAddr> = match host.parse::<IpAddr>() {
            Ok(ip) => vec![ip],
            Err(_) => tokio::time::timeout(LOOKUP_TIMEOUT, tokio::net::lookup_host((host.as_str(), port)))
                .await
                .map_err(|_| format!("the host {host} did not resolve within {LOOKUP_TIMEOUT:?}"))?
                .map_err(|e| format!("the host {host} does not resolve: {e}"))?
                .map(|a| a.ip())
                .collect(),
        };
        if addresses.is_empty() {
            return Err(format!("the host {host} does not resolve"));
        }
        for ip in addresses {
            self.check_address(ip).map_err(|why| format!("{host}: {why}"))?;
        }
        Ok(url)
    }
}

/// Whether `ip` is an address of the public internet.
fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped().or_else(|| ipv4_compatible(v6)).or_else(|| six_to_four(v6)) {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // CGNAT 100.64.0.0/10
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking 198.18.0.0/15
        || a >= 240) // reserved, and broadcast
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00 // unique local fc00::/7
        || (first & 0xffc0) == 0xfe80 // link-local fe80::/10
        || (first & 0xffc0) == 0xfec0 // site-local (deprecated) fec0::/10
        || first == 0x2001 && ip.segments()[1] == 0x0db8 // documentation
        || first == 0x0064 && ip.segments()[1] == 0xff9b) // NAT64, which maps IPv4 inside
}

/// The IPv4 address a 6to4 address (`2002:aabb:ccdd::/48`) carries.
fn six_to_four(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    (s[0] == 0x2002).then(|| Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8))
}

/// `::a.b.c.d` (deprecated IPv4-compatible form), except `::` and `::1`.
fn ipv4_compatible(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    (s[..6].iter().all(|&x| x == 0) && !(s[6] == 0 && s[7] <= 1))
        .then(|| Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: Policy = Policy { allow_private: false };

    #[test]
    fn private_and_special_addresses_are_refused() {
        for ip in [
            "127.0.0.1",
            "127.255.0.9",
            "10.0.0.1",
            "172.16.5.4",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.254",
            "0.0.0.0",
            "0.1.2.3",
            "255.255.255.255",
            "224.0.0.1",
            "240.0.0.1",
            "192.0.0.8",
            "198.18.0.1",
            "192.0.2.1",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "64:ff9b::7f00:1",
            "2002:7f00:1::1",
            "2002:a9fe:a9fe::1",
            "2001:db8::1",
        ] {
            let ip: IpAddr = ip.parse().unwrap();
            assert!(!is_public(ip), "{ip} must be refused");
            assert!(RULES.check_address(ip).is_err());
            assert!(Policy { allow_private: true }.check_address(ip).is_ok(), "the operator may allow {ip}");
        }
    }

    #[test]
    fn public_addresses_are_allowed() {
        for ip in [
            "8.8.8.8",
            "1.1.1.1",
            "100.63.255.255",
            "100.128.0.1",
            "172.32.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "2002:808:808::1",
        ] {
            assert!(is_public(ip.parse().unwrap()), "{ip} is public");
        }
    }

    #[test]
    fn the_form_of_a_url_is_checked_before_any_lookup() {
        assert!(parse(RULES, "https://hooks.example.com/crm?x=1").is_ok());
        for bad in [
            "http://hooks.example.com/",
            "ftp://hooks.example.com/",
            "https://user:pass@hooks.example.com/",
            "not a url",
            "https://",
        ] {
            assert!(parse(RULES, bad).is_err(), "{bad}");
        }
        assert!(parse(Policy { allow_private: true }, "http://127.0.0.1:9000/").is_ok());
        assert!(parse(RULES, &format!("https://a.co/{}", "x".repeat(MAX_URL))).is_err());
    }

    #[tokio::test]
    async fn literal_and_resolved_hosts_are_checked() {
        for url in [
            "https://127.0.0.1/",
            "https://10.0.0.1/",
            "https://169.254.169.254/latest",
            "https://[::1]/",
            "https://localhost/",
        ] {
            assert!(RULES.check(url).await.is_err(), "{url}");
        }
        assert!(RULES.check("https://8.8.8.8/hook").await.is_ok());
        assert!(Policy { allow_private: true }.check("http://localhost:9/").await.is_ok());
    }

    #[test]
    fn a_url_in_a_log_line_keeps_its_host_and_path_alone() {
        assert_eq!(
            for_logs("https://user:secret@hooks.acme.co:8443/in/crm?token=abc#frag"),
            "https://hooks.acme.co:8443/in/crm"
        );
        assert_eq!(for_logs("https://hooks.acme.co/?sig=1"), "https://hooks.acme.co/");
        assert_eq!(for_logs("not a url ?token=abc"), "(not a URL)");
    }
}
