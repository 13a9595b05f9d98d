import Foundation

/// The package root, found from this file's location.
func packageRoot(file: String = #filePath) -> URL {
    URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

extension Array where Element == UInt8 {
    /// The bytes of a file.
    init(contentsOfFile url: URL) throws {
        self = [UInt8](try Data(contentsOf: url))
    }
}
