import Foundation
import Stepwise
import StepwiseTesting
import Testing

/// One hostile input of `Fixtures/hostile/<parser>/` and the clean rejection it must get.
///
/// Every case is a sidecar `<name>.expected.json`:
///
/// ```json
/// {"description": "…", "generate": [{"text": "\""}, {"repeat": "a", "count": 52428800}],
///  "time_limit_seconds": 20, "expect": {"error": {"code": "invalid_json", "message": "…"}}}
/// ```
///
/// The input is the file `<name>.<ext>` beside the sidecar (any extension), or, for inputs too
/// large to commit, the sidecar's `generate` recipe. `expect` depends on the parser (see the
/// folder's test and `Fixtures/hostile/README.md`). A sidecar with `known_bug` documents a
/// reproducer of a reported bug: it is skipped unless `STEPWISE_HOSTILE_KNOWN_BUGS=1`.
struct HostileCase: Sendable, CustomTestStringConvertible {
    /// The parser folder: `json`, `sequence`, `expression`, `template`, `manifest`, `signature`.
    let parser: String
    /// The file name without extensions.
    let name: String
    /// The sidecar, parsed.
    let sidecar: JSONObject
    /// The input file, relative to the package root, when there is one.
    let inputPath: String?

    var testDescription: String { "\(parser)/\(name)" }

    /// `expect`.
    var expect: JSONObject { sidecar["expect"]?.objectValue ?? [:] }

    /// The reported bug this case reproduces, if any.
    var knownBug: String? { sidecar["known_bug"]?.stringValue }

    /// How long the parser may take on this input; 10 s unless the sidecar says otherwise.
    var timeLimit: Double { sidecar["time_limit_seconds"]?.numberValue ?? 10 }

    /// The input bytes: the committed file, or the generated ones.
    func input() throws -> [UInt8] {
        if let inputPath { return try PackageFiles.read(inputPath) }
        guard let recipe = sidecar["generate"] else {
            throw FixtureError(code: .malformed, message: "neither an input file nor 'generate'", context: testDescription)
        }
        return try Generator.bytes(recipe, context: testDescription)
    }

    /// A JSON value from the sidecar: `key` itself, or `key_generate` (a recipe whose bytes are
    /// parsed as JSON), or `fallback`.
    func json(_ key: String, fallback: JSONValue) throws -> JSONValue {
        if let value = sidecar[key] { return value }
        guard let recipe = sidecar[key + "_generate"] else { return fallback }
        let bytes = try Generator.bytes(recipe, context: testDescription)
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw FixtureError(code: .invalidJSON, message: "\(key)_generate: \(error)", context: testDescription)
        }
    }
}

/// Loads the cases of one folder.
enum HostileCorpus {
    static let folder = "Fixtures/hostile"

    /// Every case of `parser`, sorted by name. Known-bug cases are left out unless
    /// `includeKnownBugs`.
    static func cases(_ parser: String, knownBugs: Bool = false) -> [HostileCase] {
        let all = allCases(parser)
        return all.filter { ($0.knownBug != nil) == knownBugs }
    }

    /// Every case of `parser`.
    static func allCases(_ parser: String) -> [HostileCase] {
        let directory = "\(folder)/\(parser)"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: PackageFiles.path(directory))) ?? []
        return names.filter { $0.hasSuffix(".expected.json") }.sorted().compactMap { sidecarName in
            let name = String(sidecarName.dropLast(".expected.json".count))
            guard case .object(let sidecar)? = try? PackageFiles.readJSON("\(directory)/\(sidecarName)") else { return nil }
            let input = names.first { $0 != sidecarName && $0.hasPrefix(name + ".") && !$0.hasSuffix(".expected.json") }
            return HostileCase(parser: parser, name: name, sidecar: sidecar, inputPath: input.map { "\(directory)/\($0)" })
        }
    }

    /// Whether known-bug reproducers should run (`STEPWISE_HOSTILE_KNOWN_BUGS=1`).
    static var runKnownBugs: Bool { ProcessInfo.processInfo.environment["STEPWISE_HOSTILE_KNOWN_BUGS"] == "1" }
}

/// Builds large inputs from a recipe so that they are never committed.
///
/// A recipe is an array of pieces, concatenated: `{"text": "…"}`, or `{"repeat": "…", "count":
/// N}` with an optional `"separator"` between repetitions and `"indexed": true` to replace
/// `{i}` by the 0-based repetition number.
enum Generator {
    static func bytes(_ recipe: JSONValue, context: String) throws -> [UInt8] {
        guard case .array(let pieces) = recipe else {
            throw FixtureError(code: .malformed, message: "'generate' must be an array", context: context)
        }
        var out: [UInt8] = []
        for piece in pieces {
            if let text = piece["text"]?.stringValue {
                out.append(contentsOf: text.utf8)
            } else if let unit = piece["repeat"]?.stringValue, let count = piece["count"]?.exactIntegerValue {
                let separator = Array((piece["separator"]?.stringValue ?? "").utf8)
                let indexed = piece["indexed"]?.boolValue ?? false
                let unitBytes = Array(unit.utf8)
                if unitBytes.count == 1 && separator.isEmpty && !indexed {
                    out.append(contentsOf: repeatElement(unitBytes[0], count: Int(count)))
                    continue
                }
                out.reserveCapacity(out.count + Int(count) * (unitBytes.count + separator.count))
                for i in 0..<Int(count) {
                    if i > 0 { out.append(contentsOf: separator) }
                    if indexed {
                        out.append(contentsOf: unit.replacingOccurrences(of: "{i}", with: String(i)).utf8)
                    } else {
                        out.append(contentsOf: unitBytes)
                    }
                }
            } else {
                throw FixtureError(code: .malformed, message: "unknown generator piece \(piece)", context: context)
            }
        }
        return out
    }
}
