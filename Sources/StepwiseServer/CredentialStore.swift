public import StepwiseJSON

/// Per-tenant credentials that answer step delegations (`credentials://<id>[/<field>]`,
/// SYNC.md §2.8).
///
/// A credential is any JSON value: usually a string (the whole secret) or an object of named
/// fields. `credentials://weather` resolves to the credential `weather` as a whole;
/// `credentials://weather/api_key` to the member `api_key` of the object credential `weather`.
///
/// The JSON form (what `stepwise serve --credentials FILE` reads) maps tenant ids to
/// credential ids:
///
/// ```json
/// {"default": {"weather": {"api_key": "sk-123"}, "smtp-password": "hunter2"}}
/// ```
///
/// ```swift
/// let credentials = try CredentialStore(json: JSONParser.parse(bytes))
/// let resolved = credentials.resolve(params, tenant: .defaultTenant)
/// ```
///
/// The store lives in memory only; the server never writes a resolved secret anywhere but into
/// an encrypted command payload.
public struct CredentialStore: Sendable {
    /// The scheme of a credential reference.
    public static let scheme = "credentials://"

    private var credentials: [TenantID: [String: JSONValue]]

    /// An empty store, or one with the given credentials.
    ///
    /// - Parameter credentials: credential values by tenant and id.
    public init(_ credentials: [TenantID: [String: JSONValue]] = [:]) {
        self.credentials = credentials
    }

    /// A store from its JSON form `{"<tenant>": {"<id>": <value>}}`.
    ///
    /// - Parameter json: the document.
    /// - Throws: ``SyncServerError`` (``SyncServerError/Code/badRequest``) when it is not an
    ///   object of objects keyed by valid tenant ids.
    public init(json: JSONValue) throws(SyncServerError) {
        guard case .object(let tenants) = json else {
            throw SyncServerError(.badRequest, "the credentials document must be an object keyed by tenant id")
        }
        var credentials: [TenantID: [String: JSONValue]] = [:]
        for (name, value) in tenants {
            guard let tenant = TenantID(rawValue: name) else {
                throw SyncServerError(.badRequest, "'\(name)' is not a valid tenant id")
            }
            guard case .object(let entries) = value else {
                throw SyncServerError(.badRequest, "the credentials of tenant '\(name)' must be an object")
            }
            var byID: [String: JSONValue] = [:]
            for (id, secret) in entries {
                guard !id.isEmpty, !id.contains("/") else {
                    throw SyncServerError(.badRequest, "credential id '\(id)' of tenant '\(name)' is empty or contains '/'")
                }
                byID[id] = secret
            }
            credentials[tenant] = byID
        }
        self.credentials = credentials
    }

    /// Adds or replaces one credential.
    ///
    /// - Parameters:
    ///   - value: the secret (a string, or an object of fields).
    ///   - id: the credential id (no `/`).
    ///   - tenant: its tenant.
    public mutating func set(_ value: JSONValue, id: String, tenant: TenantID) {
        credentials[tenant, default: [:]][id] = value
    }

    /// The number of credentials of a tenant.
    ///
    /// - Parameter tenant: the tenant.
    /// - Returns: how many it has.
    public func count(for tenant: TenantID) -> Int {
        credentials[tenant]?.count ?? 0
    }

    /// Resolves one reference.
    ///
    /// - Parameters:
    ///   - reference: `credentials://<id>` or `credentials://<id>/<field>`.
    ///   - tenant: whose credentials to use.
    /// - Returns: the value, or a message saying why it does not resolve (never containing a
    ///   secret).
    public func resolve(reference: String, tenant: TenantID) -> Result<JSONValue, SyncServerError> {
        guard reference.hasPrefix(Self.scheme) else {
            return .failure(SyncServerError(.badRequest, "'\(reference)' is not a credentials:// reference"))
        }
        let rest = reference.dropFirst(Self.scheme.count)
        let id: Substring
        var field: Substring?
        if let slash = rest.firstIndex(of: "/") {
            id = rest[..<slash]
            field = rest[rest.index(after: slash)...]
        } else {
            id = rest
        }
        guard !id.isEmpty, field.map({ !$0.isEmpty }) ?? true else {
            return .failure(SyncServerError(.badRequest, "malformed credential reference '\(reference)'"))
        }
        guard let value = credentials[tenant]?[String(id)] else {
            return .failure(SyncServerError(.notFound, "credential '\(id)' not found"))
        }
        guard let field else { return .success(value) }
        guard let member = value[String(field)] else {
            return .failure(SyncServerError(.notFound, "credential '\(id)' has no field '\(field)'"))
        }
        return .success(member)
    }

    /// `params` with every string that starts with `credentials://` replaced by its value, at
    /// any depth.
    ///
    /// - Parameters:
    ///   - params: the delegation's params.
    ///   - tenant: whose credentials to use.
    /// - Returns: the resolved params, or the first reference that failed.
    public func resolve(_ params: JSONValue, tenant: TenantID) -> Result<JSONValue, SyncServerError> {
        switch params {
        case .string(let text) where text.hasPrefix(Self.scheme):
            return resolve(reference: text, tenant: tenant)
        case .array(let items):
            var resolved: [JSONValue] = []
            resolved.reserveCapacity(items.count)
            for item in items {
                switch resolve(item, tenant: tenant) {
                case .success(let value): resolved.append(value)
                case .failure(let error): return .failure(error)
                }
            }
            return .success(.array(resolved))
        case .object(let object):
            var resolved = JSONObject(minimumCapacity: object.count)
            for (key, value) in object {
                switch resolve(value, tenant: tenant) {
                case .success(let value): resolved[key] = value
                case .failure(let error): return .failure(error)
                }
            }
            return .success(.object(resolved))
        default:
            return .success(params)
        }
    }
}
