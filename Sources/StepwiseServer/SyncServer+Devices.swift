import Hummingbird
import StepwiseJSON

extension SyncServer {
    /// `POST /mobile/devices/register` (SYNC.md §2.9): 201 without a body.
    func handleRegister(_ request: Request) async throws(SyncServerError) -> Response {
        let tenant = try await authenticate(request)
        let body = FieldReader(try await readJSONObject(request))
        let deviceID = try body.string("device_id")
        guard deviceID.utf8.count <= 256 else {
            throw SyncServerError(.badRequest, "device_id is longer than 256 bytes")
        }
        try checkDeviceHeader(request, bodyDeviceID: deviceID)
        let registration = DeviceRegistration(
            deviceID: deviceID, platform: try body.string("platform"), appVersion: try body.optionalString("app_version"),
            pushToken: try body.optionalString("push_token"))
        _ = try await store.registerDevice(
            registration, tenant: tenant, maxDevices: configuration.maxDevicesPerTenant, now: clock.now())
        return JSONResponse.empty(status: .created)
    }

    /// `GET /mobile/devices?limit=`.
    func handleListDevices(_ request: Request) async throws(SyncServerError) -> Response {
        let tenant = try await authenticate(request)
        let page = try await store.devices(tenant: tenant, limit: try listLimit(request))
        return JSONResponse.page(page, \.json)
    }

    /// `GET /mobile/status?device_id=&limit=`.
    func handleListStatuses(_ request: Request) async throws(SyncServerError) -> Response {
        let tenant = try await authenticate(request)
        let page = try await store.statuses(
            tenant: tenant, deviceID: queryValue(request, "device_id"), limit: try listLimit(request))
        return JSONResponse.page(page, \.json)
    }

    /// `POST /mobile/telemetry` (SYNC.md §4): `{"events": [...], "device": {...}}` → 200
    /// `{"accepted": n}`. The device must be registered to the tenant.
    func handleTelemetry(_ request: Request) async throws(SyncServerError) -> Response {
        let tenant = try await authenticate(request)
        let body = FieldReader(try await readJSONObject(request))
        let events = try body.array("events", limit: configuration.maxArrayItems)
        guard let deviceObject = try body.optionalObject("device") else {
            throw SyncServerError(.badRequest, "device is required and must be an object")
        }
        let deviceID = try FieldReader(deviceObject, path: "device").string("device_id")
        try checkDeviceHeader(request, bodyDeviceID: deviceID)
        guard try await store.device(deviceID, tenant: tenant) != nil else {
            throw SyncServerError(.notFound, "device '\(deviceID)' is not registered")
        }
        let now = clock.now()
        var records: [TelemetryEvent] = []
        for (index, item) in events.enumerated() {
            let event = try FieldReader(item, path: "events[\(index)]")
            records.append(
                TelemetryEvent(
                    deviceID: deviceID, tenant: tenant, eventType: try event.string("event_type"),
                    payload: event.value("payload"), timestamp: try event.optionalString("timestamp") ?? "", receivedAt: now))
        }
        try await store.recordTelemetry(records, keep: configuration.maxTelemetryEventsPerTenant)
        return JSONResponse.make(body: ["accepted": .integer(Int64(records.count))])
    }
}
