/// The `id` of a block: unique within its id space (the main tree, `on_failure`, `on_cancel`).
public struct BlockID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The id as written in the document.
    public let rawValue: String
    /// Wraps an id.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Wraps an id.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (lhs: BlockID, rhs: BlockID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Equal when the UTF-8 bytes are: distinct JSON strings are distinct ids, even canonically
    /// equivalent ones (`é` composed and decomposed), which `String ==` takes as equal.
    public static func == (lhs: BlockID, rhs: BlockID) -> Bool { lhs.rawValue.utf8.elementsEqual(rhs.rawValue.utf8) }

    /// Hashes the UTF-8 bytes, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        var text = rawValue
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
