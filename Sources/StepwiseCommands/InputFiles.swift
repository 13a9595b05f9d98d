import Foundation

/// Reading the files and folders named on a command line.
enum InputFiles {
    /// Expands each path: a file as is, a folder to every `*.json` below it (sorted).
    ///
    /// - Returns: the files, and what is wrong with each path that does not exist or is a
    ///   folder without any `*.json` file (a mistyped path must not pass as "nothing to check").
    static func expand(_ paths: [String]) -> (files: [String], missing: [(path: String, reason: String)]) {
        var files: [String] = []
        var missing: [(path: String, reason: String)] = []
        let fm = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: path, isDirectory: &isDirectory) else {
                missing.append((path, "no such file or folder"))
                continue
            }
            if isDirectory.boolValue {
                let base = URL(fileURLWithPath: path)
                var found: [String] = []
                if let enumerator = fm.enumerator(at: base, includingPropertiesForKeys: nil) {
                    for case let url as URL in enumerator where url.pathExtension == "json" {
                        found.append(url.path)
                    }
                }
                if found.isEmpty { missing.append((path, "no *.json file in this folder")) }
                files.append(contentsOf: found.sorted())
            } else {
                files.append(path)
            }
        }
        return (files, missing)
    }

    /// The largest input file read: every document the tool reads is far smaller (a sequence
    /// at most a few MiB), and a huge file must not be read whole into memory first.
    static let maxBytes = 64 << 20

    /// The bytes of a file.
    ///
    /// - Throws: a message naming the file when it cannot be read or is over ``maxBytes``.
    static func read(_ path: String) throws(InputError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw InputError(message: "cannot read \(path): no such file")
        }
        if isDirectory.boolValue { throw InputError(message: "cannot read \(path): it is a folder, not a file") }
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > maxBytes {
            throw InputError(message: "cannot read \(path): it is \(size) bytes, more than the \(maxBytes >> 20) MiB an input may be")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.isReadableFile(atPath: path) ? "it is not a regular file" : "permission denied"
            throw InputError(message: "cannot read \(path): \(reason)")
        }
        return [UInt8](data)
    }
}

/// A command-line input that cannot be used.
struct InputError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
