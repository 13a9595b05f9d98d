import Foundation

/// Finds and reads the package's own files (schemas, fixtures) from tests.
///
/// The package root is derived from a source file path known at compile time (`#filePath`), so
/// tests work from any working directory.
///
/// ```swift
/// let bytes = try PackageFiles.read("Fixtures/sequences/payment-verification.json")
/// let names = try PackageFiles.jsonFiles(in: "Fixtures/invalid-sequences")
/// ```
public enum PackageFiles {
    /// The package root: three levels above `filePath` (`<root>/Sources/<Target>/<File>.swift` or
    /// `<root>/Tests/<Target>/<File>.swift`).
    ///
    /// - Parameter filePath: A source file directly inside a target folder; defaults to the caller's.
    public static func root(filePath: String = #filePath) -> String {
        var components = filePath.split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)
        return components.joined(separator: "/")
    }

    /// The absolute path of `relativePath` under the package root.
    public static func path(_ relativePath: String) -> String {
        root() + "/" + relativePath
    }

    /// Whether a file or folder exists at `relativePath`.
    public static func exists(_ relativePath: String) -> Bool {
        FileManager.default.fileExists(atPath: path(relativePath))
    }

    /// The bytes of the file at `relativePath` (under the package root, or absolute when it starts
    /// with `/`).
    ///
    /// - Throws: ``FixtureError`` with code `unreadable` when the file cannot be read.
    public static func read(_ relativePath: String) throws(FixtureError) -> [UInt8] {
        let full = relativePath.hasPrefix("/") ? relativePath : path(relativePath)
        guard let data = FileManager.default.contents(atPath: full) else {
            throw FixtureError(code: .unreadable, message: "cannot read file", context: full)
        }
        return [UInt8](data)
    }

    /// The `.json` files under the folder at `relativePath`, as paths relative to the package
    /// root, sorted; subfolders are searched when `recursive`.
    ///
    /// - Returns: An empty array when the folder does not exist.
    public static func jsonFiles(in relativePath: String, recursive: Bool = false) -> [String] {
        let base = path(relativePath)
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: base, isDirectory: &isDirectory), isDirectory.boolValue else { return [] }
        let names: [String]
        if recursive {
            names = (manager.enumerator(atPath: base)?.allObjects as? [String]) ?? []
        } else {
            names = (try? manager.contentsOfDirectory(atPath: base)) ?? []
        }
        return names.filter { $0.hasSuffix(".json") }.sorted().map { relativePath + "/" + $0 }
    }
}
