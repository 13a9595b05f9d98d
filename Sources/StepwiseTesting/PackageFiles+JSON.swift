public import StepwiseJSON

extension PackageFiles {
    /// The file at `relativePath` parsed as JSON.
    ///
    /// - Throws: ``FixtureError`` (`unreadable` or `invalidJSON`).
    public static func readJSON(_ relativePath: String, maxDepth: Int = 256) throws(FixtureError) -> JSONValue {
        let bytes = try read(relativePath)
        do {
            return try JSONParser.parse(bytes, limits: .init(maxDepth: maxDepth))
        } catch {
            throw FixtureError(code: .invalidJSON, message: error.description, context: relativePath)
        }
    }
}
