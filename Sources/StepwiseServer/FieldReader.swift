import StepwiseJSON

/// Reads typed members of a request object; a wrong type is a 400 naming the member's path.
struct FieldReader {
    let object: JSONObject
    /// The object's path for messages (`status_updates[2]`); empty for the body.
    let path: String

    init(_ object: JSONObject, path: String = "") {
        self.object = object
        self.path = path
    }

    /// A reader of `value`, which must be an object.
    init(_ value: JSONValue, path: String) throws(SyncServerError) {
        guard case .object(let object) = value else {
            throw SyncServerError(.badRequest, "\(path) must be an object")
        }
        self.init(object, path: path)
    }

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// A required non-empty string.
    func string(_ key: String) throws(SyncServerError) -> String {
        guard let value = try optionalString(key), !value.isEmpty else {
            throw SyncServerError(.badRequest, "\(name(key)) is required and must be a non-empty string")
        }
        return value
    }

    /// A string, or `nil` when absent or `null`.
    func optionalString(_ key: String) throws(SyncServerError) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw SyncServerError(.badRequest, "\(name(key)) must be a string")
        }
    }

    /// An integer (an integral number), or `nil` when absent or `null`.
    func optionalInteger(_ key: String) throws(SyncServerError) -> Int64? {
        switch object[key] {
        case nil, .null?: return nil
        case let value?:
            guard let integer = value.exactIntegerValue else {
                throw SyncServerError(.badRequest, "\(name(key)) must be an integer")
            }
            return integer
        }
    }

    /// A boolean, or `nil` when absent or `null`.
    func optionalBool(_ key: String) throws(SyncServerError) -> Bool? {
        switch object[key] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw SyncServerError(.badRequest, "\(name(key)) must be a boolean")
        }
    }

    /// An array (empty when absent or `null`) of at most `limit` items.
    func array(_ key: String, limit: Int) throws(SyncServerError) -> [JSONValue] {
        switch object[key] {
        case nil, .null?: return []
        case .array(let items)?:
            guard items.count <= limit else {
                throw SyncServerError(.badRequest, "\(name(key)) has \(items.count) items; at most \(limit) are allowed")
            }
            return items
        default: throw SyncServerError(.badRequest, "\(name(key)) must be an array")
        }
    }

    /// An object, or `nil` when absent or `null`.
    func optionalObject(_ key: String) throws(SyncServerError) -> JSONObject? {
        switch object[key] {
        case nil, .null?: return nil
        case .object(let object)?: return object
        default: throw SyncServerError(.badRequest, "\(name(key)) must be an object")
        }
    }

    /// An object, or an object given as JSON text (the orch8 flat form), or `nil` when absent
    /// or `null`.
    func objectOrJSONText(_ key: String) throws(SyncServerError) -> JSONObject? {
        switch object[key] {
        case nil, .null?: return nil
        case .object(let object)?: return object
        case .string(let text)?:
            guard case .object(let object)? = try? JSONParser.parse(text) else {
                throw SyncServerError(.badRequest, "\(name(key)) must be an object or the JSON text of one")
            }
            return object
        default: throw SyncServerError(.badRequest, "\(name(key)) must be an object or the JSON text of one")
        }
    }

    /// Any value; `null` when absent.
    func value(_ key: String) -> JSONValue { object[key] ?? .null }
}
