import StepwiseJSON

extension SequenceLoader {
    /// One element of a bundle: its load result and its bytes as written.
    public struct BundleElement: Sendable {
        /// The element's result; its problems and warnings point into the array (`/2/blocks/0`).
        public let result: LoadResult
        /// The element's own bytes, as stored when it is loaded (SEMANTICS §1.3).
        public let bytes: [UInt8]
    }

    /// Loads a bundle: a JSON array of sequence documents (orch8's `sequences.json`). Each
    /// element is validated on its own, against its own bytes as written and the per-document
    /// limits (size, JSON depth: the array is one level more).
    ///
    /// ```swift
    /// if let elements = SequenceLoader.loadBundle(bytes) {
    ///     for element in elements where !element.result.isValid { print(element.result.problems) }
    /// }
    /// ```
    ///
    /// - Returns: one element per array element, in order; `nil` when `bytes` is not a JSON
    ///   array (load it with ``load(_:limits:)``, which reports what is wrong with it).
    public static func loadBundle(_ bytes: [UInt8], limits: SequenceLimits = SequenceLimits()) -> [BundleElement]? {
        let opening = bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        guard opening == UInt8(ascii: "["),
            case .array(let elements)? = try? JSONParser.parse(bytes, limits: .init(maxDepth: limits.maxJSONDepth + 1))
        else { return nil }
        let spans = JSONSpans.value(in: bytes, from: 0).flatMap { JSONSpans.elements(in: bytes, of: $0) }
        return elements.enumerated().map { i, element in
            let pointer = JSONPointer(tokens: [String(i)])
            let elementBytes = spans.map { Array(bytes[$0[i]]) } ?? JSONWriter.bytes(element)
            guard elementBytes.count <= limits.maxDocumentBytes else {
                let problem = Problem(
                    pointer: pointer, code: .tooLarge,
                    message: "document is \(elementBytes.count) bytes, more than the limit of \(limits.maxDocumentBytes)")
                return BundleElement(result: LoadResult(sequence: nil, problems: [problem], warnings: []), bytes: elementBytes)
            }
            let result = load(document: element, sourceBytes: elementBytes, at: pointer, limits: limits)
            return BundleElement(result: result, bytes: elementBytes)
        }
    }
}
