public import Foundation

/// Which URLs manifest sync may fetch (SYNC.md §1, transport rules).
///
/// HTTPS only. Plain `http:`, `localhost`, and loopback, private, link-local or otherwise
/// non-public IP-literal hosts are refused, except that `allowInsecureLocalhost` allows
/// `http(s)://localhost` and `http(s)://127.0.0.1` (tests, a local server). Numeric hosts that
/// are not canonical dotted quads (`2130706433`, `0x7f.1`) are refused as ambiguous.
///
/// ```swift
/// let policy = TransportPolicy(allowInsecureLocalhost: false)
/// policy.refusal(for: URL(string: "http://cdn.example.com/m.json")!)  // "… must use https"
/// ```
public struct TransportPolicy: Sendable, Hashable {
    /// Whether `http://localhost` and `http://127.0.0.1` are allowed.
    public var allowInsecureLocalhost: Bool
    /// Whether `file:` URLs are allowed (the CLI's directory mode only; never on a device).
    package var allowsFileURLs: Bool

    /// Creates a policy.
    public init(allowInsecureLocalhost: Bool = false) {
        self.allowInsecureLocalhost = allowInsecureLocalhost
        self.allowsFileURLs = false
    }

    /// Why `url` may not be fetched, or `nil` when it may.
    ///
    /// The message names the URL without credentials, query or fragment.
    public func refusal(for url: URL) -> String? {
        let scheme = url.scheme?.lowercased() ?? ""
        let shown = Self.redacted(url)
        if scheme == "file" { return allowsFileURLs ? nil : "\(shown): file URLs are not allowed" }
        guard scheme == "https" || scheme == "http" else { return "\(shown): only https URLs are allowed" }
        guard let host = Self.host(of: url), !host.isEmpty else { return "\(shown): the URL has no host" }
        if host == "localhost" || host == "127.0.0.1" {
            return allowInsecureLocalhost ? nil : "\(shown): loopback hosts need allowInsecureLocalhost"
        }
        if let reason = Self.nonPublicAddressReason(host) { return "\(shown): \(reason)" }
        if scheme != "https" { return "\(shown): the URL must use https" }
        return nil
    }

    /// The URL as it may appear in messages: scheme, host, port and path; no user, query or fragment.
    public static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return "<url>" }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? "<url>"
    }

    /// `scheme://host:port` with the scheme's default port, for same-origin checks; `nil` without a host.
    package static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = host(of: url), !host.isEmpty else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }

    /// The lowercased host without IPv6 brackets or a trailing dot.
    static func host(of url: URL) -> String? {
        guard var host = URLComponents(url: url, resolvingAgainstBaseURL: true)?.host?.lowercased() else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host = String(host.dropLast()) }
        return host
    }

    /// Why an IP-literal host is not public, or `nil` for a DNS name or a public address.
    static func nonPublicAddressReason(_ host: String) -> String? {
        if host.hasSuffix(".localhost") { return "loopback hosts are not allowed" }
        if host.contains(":") { return ipv6Reason(host) }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let octets = labels.compactMap { label -> Int? in
            guard (1...3).contains(label.count), label.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                label == "0" || !label.hasPrefix("0"), let v = Int(label), v <= 255
            else { return nil }
            return v
        }
        guard labels.count == 4, octets.count == 4 else {
            // Labels that are all decimal or 0x-hex ("2130706433", "0x7f.1", "127.1") are IP
            // literals to some resolvers: refuse them rather than guess.
            let numeric = labels.allSatisfy { label in
                let digits = label.hasPrefix("0x") ? label.dropFirst(2) : label[...]
                return !label.isEmpty && digits.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
                    && (label.hasPrefix("0x") || digits.utf8.allSatisfy { (0x30...0x39).contains($0) })
            }
            return numeric ? "non-canonical numeric hosts are not allowed" : nil
        }
        let (a, b) = (octets[0], octets[1])
        let privateRange =
            a == 0 || a == 10 || a == 127 || (a == 100 && (64...127).contains(b)) || (a == 169 && b == 254)
            || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168) || (a == 192 && b == 0 && octets[2] == 0)
            || (a == 198 && (18...19).contains(b)) || a >= 224
        return privateRange ? "loopback and private IP addresses are not allowed" : nil
    }

    private static func ipv6Reason(_ host: String) -> String? {
        let h = host.split(separator: "%").first.map(String.init) ?? host
        if h == "::1" || h == "::" || h == "0:0:0:0:0:0:0:1" || h == "0:0:0:0:0:0:0:0" {
            return "loopback and private IP addresses are not allowed"
        }
        if h.hasPrefix("::ffff:") {
            let v4 = String(h.dropFirst("::ffff:".count))
            return v4.contains(".") ? nonPublicAddressReason(v4) : "IPv4-mapped addresses are not allowed"
        }
        let first = h.split(separator: ":", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let value = Int(first, radix: 16) ?? 0
        // fc00::/7 unique local, fe80::/10 link-local, ff00::/8 multicast.
        if first.count == 4 && (value & 0xFE00 == 0xFC00 || value & 0xFFC0 == 0xFE80 || value & 0xFF00 == 0xFF00) {
            return "loopback and private IP addresses are not allowed"
        }
        return nil
    }
}
