//! Who the client of a public request is: the connection's peer, or, when
//! the peer is one of the proxies `CRM_TRUST_FORWARDED_FOR` names, the last
//! `X-Forwarded-For` hop that is not itself one of them (a hop the client
//! wrote before its own address is never reached).
//!
//! Proxies are named by address or by network (`10.0.0.0/8`,
//! `2001:db8::/32`), as a cloud load balancer's addresses change within its
//! subnet. Addresses are compared in their canonical form, so a proxy a
//! dual-stack socket reports as `::ffff:10.0.0.5` is `10.0.0.5`.

use std::net::IpAddr;

use http::HeaderMap;
use ipnet::IpNet;

/// The parsed `CRM_TRUST_FORWARDED_FOR`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Comma-separated addresses and networks; empty trusts no one.
    pub fn parse(text: &str) -> Result<TrustedProxies, String> {
        text.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<IpNet>()
                    .or_else(|_| s.parse::<IpAddr>().map(IpNet::from))
                    .map(|net| net.trunc())
                    .map_err(|_| format!("CRM_TRUST_FORWARDED_FOR: {s:?} is not an IP address or network"))
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }

    fn contains(&self, address: IpAddr) -> bool {
        let address = address.to_canonical();
        self.0.iter().any(|net| net.contains(&address))
    }

    /// The client behind `peer`, from the request's `X-Forwarded-For` when
    /// `peer` is a trusted proxy (the first hop when every hop is one).
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.contains(peer) {
            return peer;
        }
        let hops: Vec<IpAddr> = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|hop| hop.trim().parse().ok())
            .collect();
        hops.iter().rev().copied().find(|hop| !self.contains(*hop)).or(hops.first().copied()).unwrap_or(peer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn forwarded(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", value.parse().unwrap());
        headers
    }

    #[test]
    fn proxies_are_addresses_or_networks() {
        let proxies = TrustedProxies::parse(" 10.0.0.1, ::1 ,192.168.0.0/16, 2001:db8::/32").unwrap();
        assert!(proxies.contains(ip("10.0.0.1")) && !proxies.contains(ip("10.0.0.2")));
        assert!(proxies.contains(ip("192.168.44.7")) && !proxies.contains(ip("192.169.0.1")));
        assert!(proxies.contains(ip("2001:db8:ff::1")) && !proxies.contains(ip("2001:db9::1")));
        assert!(proxies.contains(ip("::ffff:192.168.1.1")), "an IPv4 address a dual-stack socket reports");
        assert_eq!(TrustedProxies::parse("").unwrap(), TrustedProxies::default());
        for wrong in ["proxy.local", "10.0.0.0/33", "10.0.0.0/"] {
            assert!(TrustedProxies::parse(wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn the_client_is_the_last_hop_before_the_trusted_proxies() {
        let proxies = TrustedProxies::parse("10.0.0.0/8").unwrap();
        let headers = forwarded("198.51.100.1, 203.0.113.7, 10.1.2.3");
        assert_eq!(proxies.client(ip("10.9.9.9"), &headers), ip("203.0.113.7"));
        assert_eq!(proxies.client(ip("172.16.0.1"), &headers), ip("172.16.0.1"), "an untrusted peer is the client");
        assert_eq!(proxies.client(ip("10.9.9.9"), &forwarded("10.0.0.7")), ip("10.0.0.7"), "only proxies: the first");
        assert_eq!(proxies.client(ip("10.9.9.9"), &HeaderMap::new()), ip("10.9.9.9"));
    }
}
