/// The id of a tenant: the unit every device, status, approval and command belongs to.
///
/// Tenant ids are short printable names (`default`, `acme`), 1–64 characters of letters,
/// digits, `-`, `_` and `.`.
///
/// ```swift
/// let tenant = TenantID(rawValue: "acme")!
/// ```
public struct TenantID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The name.
    public let rawValue: String

    /// Wraps a tenant name.
    ///
    /// - Parameter rawValue: 1–64 letters, digits, `-`, `_` or `.`.
    /// - Returns: `nil` for any other text.
    public init?(rawValue: String) {
        guard (1...64).contains(rawValue.utf8.count),
            rawValue.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) })
        else { return nil }
        self.rawValue = rawValue
    }

    /// The tenant of keys given without one: `default`.
    public static let defaultTenant = TenantID(rawValue: "default")!

    /// The name.
    public var description: String { rawValue }

    /// Orders by name.
    public static func < (lhs: TenantID, rhs: TenantID) -> Bool { lhs.rawValue < rhs.rawValue }
}
