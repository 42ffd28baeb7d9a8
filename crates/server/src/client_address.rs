//! Which address a request comes from, for the limits that are per address
//! (demo players, launch exchanges). Behind a balancer every connection
//! comes from the balancer; the client's own address is then the one the
//! balancer appended to `X-Forwarded-For`, and only a balancer listed in
//! `--trusted-proxy` is believed.
//!
//! One header only, X-Forwarded-For (nginx's `$proxy_add_x_forwarded_for`,
//! HAProxy's `option forwardfor`): reading a second kind (`Forwarded`)
//! would believe whatever a client put in the one its balancer does not
//! rewrite.

use axum::http::HeaderMap;
use ipnet::IpNet;
use std::net::{IpAddr, SocketAddr};

/// The client's address: the peer's, unless the peer is a trusted proxy;
/// then the nearest address in `X-Forwarded-For`, read from the right,
/// that is not itself a trusted proxy. A hop that is not an address ends
/// the walk: the client is then the last hop that was one.
pub fn client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    let is_trusted = |ip: &IpAddr| trusted.iter().any(|net| net.contains(ip));
    if !is_trusted(&peer) {
        return peer;
    }
    let hops: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim)
        .collect();
    let mut client = peer;
    for hop in hops.iter().rev() {
        match parse_hop(hop) {
            Some(ip) => {
                client = ip;
                if !is_trusted(&ip) {
                    break;
                }
            }
            None => break,
        }
    }
    client
}

/// An address as proxies write it: bare, or with a port.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    hop.parse::<IpAddr>()
        .ok()
        .or_else(|| hop.parse::<SocketAddr>().ok().map(|s| s.ip()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for value in values {
            map.append("x-forwarded-for", HeaderValue::from_str(value).unwrap());
        }
        map
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn nets(list: &[&str]) -> Vec<IpNet> {
        list.iter().map(|n| n.parse().unwrap()).collect()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_claims() {
        let forged = headers(&["198.51.100.7"]);
        assert_eq!(
            client_ip(ip("203.0.113.9"), &forged, &[]),
            ip("203.0.113.9")
        );
        let trusted = nets(&["10.0.0.0/8"]);
        assert_eq!(
            client_ip(ip("203.0.113.9"), &forged, &trusted),
            ip("203.0.113.9")
        );
    }

    #[test]
    fn behind_trusted_proxies_the_first_untrusted_hop_from_the_right_is_the_client() {
        let trusted = nets(&["127.0.0.1/32", "10.0.0.0/8"]);
        // The client forged the first entry; nginx appended the real one.
        let chain = headers(&["1.2.3.4, 198.51.100.7", "10.1.2.3"]);
        assert_eq!(
            client_ip(ip("127.0.0.1"), &chain, &trusted),
            ip("198.51.100.7")
        );
        // No header: the proxy itself.
        assert_eq!(
            client_ip(ip("127.0.0.1"), &HeaderMap::new(), &trusted),
            ip("127.0.0.1")
        );
        // Every hop trusted: the leftmost.
        assert_eq!(
            client_ip(ip("127.0.0.1"), &headers(&["10.9.9.9"]), &trusted),
            ip("10.9.9.9")
        );
        // Ports and IPv6.
        assert_eq!(
            client_ip(ip("127.0.0.1"), &headers(&["[2001:db8::1]:4711"]), &trusted),
            ip("2001:db8::1")
        );
        assert_eq!(
            client_ip(ip("127.0.0.1"), &headers(&["192.0.2.1:80"]), &trusted),
            ip("192.0.2.1")
        );
    }

    #[test]
    fn a_hop_that_is_no_address_ends_the_walk() {
        let trusted = nets(&["127.0.0.1/32", "10.0.0.0/8"]);
        let chain = headers(&["198.51.100.7, unknown, 10.0.0.5"]);
        assert_eq!(client_ip(ip("127.0.0.1"), &chain, &trusted), ip("10.0.0.5"));
        let chain = headers(&["198.51.100.7, garbage"]);
        assert_eq!(
            client_ip(ip("127.0.0.1"), &chain, &trusted),
            ip("127.0.0.1")
        );
    }
}
