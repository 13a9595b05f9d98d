/// The id of an instance: a lowercase RFC 4122 UUID string.
public struct InstanceID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The lowercase UUID text.
    public let rawValue: String

    /// Wraps a UUID string after lowercasing it.
    ///
    /// - Returns: `nil` when the text is not a UUID (8-4-4-4-12 hex digits).
    public init?(rawValue: String) {
        let lower = rawValue.lowercased()
        guard Self.uuidBytes(lower) != nil else { return nil }
        self.rawValue = lower
    }

    /// Wraps text already known to be a lowercase UUID (used for values read back from the store).
    package init(trusted: String) { rawValue = trusted }

    /// The nil UUID, never an instance's: journal entries about the engine itself (telemetry of
    /// applied manifests) are recorded under it.
    package static let engine = InstanceID(trusted: "00000000-0000-0000-0000-000000000000")

    /// A random (version 4) id from `random`.
    public static func random(using random: inout some RandomNumberGenerator) -> InstanceID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<16 { bytes[i] = UInt8.random(in: 0...255, using: &random) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return InstanceID(trusted: format(bytes))
    }

    /// The 16 raw bytes in RFC 4122 order, as written.
    public var bytes: [UInt8] { Self.uuidBytes(rawValue) ?? [] }

    public var description: String { rawValue }

    public static func < (lhs: InstanceID, rhs: InstanceID) -> Bool { lhs.rawValue < rhs.rawValue }

    static func format(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789abcdef")
        var s = ""
        for (i, b) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { s.append("-") }
            s.append(hex[Int(b >> 4)])
            s.append(hex[Int(b & 0xF)])
        }
        return s
    }

    static func uuidBytes(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(16)
        var i = 0
        while i < 36 {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard utf8[i] == UInt8(ascii: "-") else { return nil }
                i += 1
                continue
            }
            guard i + 1 < 36, let hi = hexValue(utf8[i]), let lo = hexValue(utf8[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out.count == 16 ? out : nil
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x61...0x66: c - 0x61 + 10
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}

/// The id of a node in one instance's execution tree (stable for the instance's life).
public struct NodeID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The number, assigned in creation order from 0 (the root).
    public let rawValue: Int
    /// Wraps a number.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The root node of every instance.
    public static let root = NodeID(rawValue: 0)
    public var description: String { String(rawValue) }
    public static func < (lhs: NodeID, rhs: NodeID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The id of an open `wait_for_input` wait.
public struct WaitID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// `<instance id>:<node id>:<attempt>`.
    public let rawValue: String
    /// Wraps a wait id.
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }
}

/// A stored sequence version: name plus version.
public struct SequenceKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The sequence name.
    public let name: String
    /// The version.
    public let version: Int
    /// Creates a key.
    public init(name: String, version: Int) {
        self.name = name
        self.version = version
    }
    public var description: String { "\(name) v\(version)" }
    public static func < (lhs: SequenceKey, rhs: SequenceKey) -> Bool {
        (lhs.name, lhs.version) < (rhs.name, rhs.version)
    }

    /// Whether the name is `other`, byte for byte: names are JSON strings, distinct whenever
    /// their UTF-8 bytes differ (`String ==` would take canonically equivalent ones as equal).
    public func hasName(_ other: String) -> Bool { name.utf8.elementsEqual(other.utf8) }

    /// Equal when the versions are and the names are byte for byte (see ``hasName(_:)``).
    public static func == (lhs: SequenceKey, rhs: SequenceKey) -> Bool { lhs.version == rhs.version && lhs.hasName(rhs.name) }

    /// Hashes the name's UTF-8 bytes and the version, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        var text = name
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(version)
    }
}
