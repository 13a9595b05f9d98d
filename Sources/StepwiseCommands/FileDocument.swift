import StepwiseSequences

/// One sequence document of an input file, loaded: the file itself, or an element of a bundle
/// (a JSON array of documents, as orch8's `sequences.json`), for `validate` and `describe`.
struct FileDocument {
    /// The load result; a bundle element's pointers point into the array (`/2/blocks/0`).
    let result: LoadResult
    /// The element's position in a bundle; `nil` for a whole file.
    let index: Int?
    /// How reports name it: the path, with `[index]` for a bundle element.
    let label: String

    /// Whether the input is not JSON at all (exit status 2), rather than an invalid sequence (1).
    var isUnusable: Bool { result.problems.contains { $0.code == .invalidJSON || $0.code == .tooDeepJSON } }

    /// The documents of the file at `path` holding `bytes`: each element of a non-empty bundle,
    /// otherwise the file as one document (an empty array is a document of the wrong type).
    static func load(_ bytes: [UInt8], path: String) -> [FileDocument] {
        if let elements = SequenceLoader.loadBundle(bytes), !elements.isEmpty {
            return elements.enumerated().map { FileDocument(result: $1.result, index: $0, label: "\(path) [\($0)]") }
        }
        return [FileDocument(result: SequenceLoader.load(bytes), index: nil, label: path)]
    }
}
