import HTTPTypes
import Hummingbird
import NIOCore
import StepwiseJSON

extension HTTPField.Name {
    /// `x-api-key`: the tenant (or admin) API key.
    static let apiKey = HTTPField.Name("x-api-key")!
    /// `x-device-id`: the device id, which must equal the body's `device_id`.
    static let deviceID = HTTPField.Name("x-device-id")!
    /// `X-Tenant-Id`: the tenant an admin key acts for.
    static let tenantID = HTTPField.Name("x-tenant-id")!
}

extension SyncServer {
    /// The caller's tenant, from `x-api-key` (and `X-Tenant-Id` for an admin key).
    ///
    /// - Parameters:
    ///   - key: the API key, if the request carries one.
    ///   - requestedTenant: the `X-Tenant-Id` (or dashboard `tenant`) value, if any.
    /// - Throws: 401 without a key or for an unknown one; 400 for an admin key without a
    ///   tenant or with a malformed one; 404 when the admin names an unknown tenant.
    func tenant(forKey key: String?, requestedTenant: String?) async throws(SyncServerError) -> TenantID {
        guard let key, !key.isEmpty else {
            throw SyncServerError(.unauthorized, "missing x-api-key")
        }
        guard let grant = try await store.grant(forAPIKey: key) else {
            throw SyncServerError(.unauthorized, "invalid API key")
        }
        switch grant {
        case .tenant(let tenant):
            return tenant
        case .admin:
            guard let requestedTenant, !requestedTenant.isEmpty else {
                throw SyncServerError(.badRequest, "an admin key must name a tenant with X-Tenant-Id")
            }
            guard let tenant = TenantID(rawValue: requestedTenant) else {
                throw SyncServerError(.badRequest, "X-Tenant-Id is not a valid tenant id")
            }
            guard try await store.tenantExists(tenant) else {
                throw SyncServerError(.notFound, "tenant '\(tenant)' not found")
            }
            return tenant
        }
    }

    /// The tenant of an API request (headers only).
    func authenticate(_ request: Request) async throws(SyncServerError) -> TenantID {
        try await tenant(forKey: request.headers[.apiKey], requestedTenant: request.headers[.tenantID])
    }

    /// Checks that `x-device-id`, when present, equals the body's `device_id`.
    ///
    /// - Throws: 400 when they differ.
    func checkDeviceHeader(_ request: Request, bodyDeviceID: String) throws(SyncServerError) {
        if let header = request.headers[.deviceID], header != bodyDeviceID {
            throw SyncServerError(.badRequest, "x-device-id does not match the body's device_id")
        }
    }

    /// The request body, at most ``SyncServerConfiguration/maxBodyBytes``.
    ///
    /// - Throws: 413 when larger.
    func readBody(_ request: Request) async throws(SyncServerError) -> [UInt8] {
        let limit = configuration.maxBodyBytes
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            throw SyncServerError(.contentTooLarge, "request body exceeds \(limit) bytes")
        }
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw SyncServerError(.contentTooLarge, "request body exceeds \(limit) bytes")
        } catch {
            throw SyncServerError(.badRequest, "could not read the request body", underlyingError: error)
        }
    }

    /// The request body as a JSON object.
    ///
    /// - Throws: 413 when too large; 400 when not a JSON object.
    func readJSONObject(_ request: Request) async throws(SyncServerError) -> JSONObject {
        let bytes = try await readBody(request)
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw SyncServerError(.badRequest, "the request body is not valid JSON: \(error)")
        }
        guard case .object(let object) = value else {
            throw SyncServerError(.badRequest, "the request body must be a JSON object")
        }
        return object
    }

    /// The `limit` query parameter: the default when absent, capped at the maximum.
    ///
    /// - Throws: 400 when it is not a positive integer.
    func listLimit(_ request: Request) throws(SyncServerError) -> Int {
        // `limit=` (empty) is absent, as empty `state=` and `device_id=` are.
        guard let text = queryValue(request, "limit") else { return configuration.defaultListLimit }
        guard let limit = Int(text), limit > 0 else {
            throw SyncServerError(.badRequest, "limit must be a positive integer")
        }
        return min(limit, configuration.maxListLimit)
    }

    /// A non-empty query parameter, or `nil`.
    func queryValue(_ request: Request, _ name: String) -> String? {
        guard let value = request.uri.queryParameters.get(name), !value.isEmpty else { return nil }
        return value
    }

    /// Sends a silent push to a device with a push token (fire-and-forget).
    func pushIfPossible(deviceID: String, tenant: TenantID, commandID: String) async {
        guard let device = try? await store.device(deviceID, tenant: tenant), let token = device.pushToken, !token.isEmpty
        else { return }
        pushSender.send(SilentPush(tenant: tenant, deviceID: deviceID, platform: device.platform, token: token, commandID: commandID))
    }
}
