public import Hummingbird
public import Logging
import NIOCore

/// The reference sync server (SYNC.md §5): the server half of the sync channel, orch8's
/// `/mobile/*` endpoints, a static publish directory and a small web page.
///
/// It is a Hummingbird 2 router over a ``SyncServerStore``:
///
/// | method, path | what |
/// |---|---|
/// | `POST /mobile/sync` | status, approvals, delegations, acks and results in; commands out |
/// | `POST /mobile/devices/register` | register a device (201) |
/// | `GET /mobile/devices` | list devices |
/// | `GET /mobile/approvals` | list approvals (`state=pending` by default, `state=all` for every state) |
/// | `POST /mobile/approvals/{id}/resolve` | resolve: queues `complete_step` |
/// | `GET /mobile/status` | list instance statuses |
/// | `POST /mobile/commands` | queue a command |
/// | `POST /mobile/telemetry` | store telemetry events (SYNC.md §4) |
/// | `GET`, `HEAD /manifests/…` | the publish directory (with `--publish-dir`), ETag/304 |
/// | `GET /` | the web page (API key by `x-api-key`, `?key=` or the `stepwise_key` cookie) |
///
/// ```swift
/// let store = try SQLiteSyncServerStore(path: "server.db")
/// try await store.addAPIKey("k-123", grant: .tenant(.defaultTenant), now: SystemSyncServerClock().now())
/// let server = SyncServer(store: store)
/// try await server.makeApplication(host: "127.0.0.1", port: 8080).runService()
/// ```
public struct SyncServer: Sendable {
    /// Where everything is stored.
    public let store: any SyncServerStore
    /// Limits and policies.
    public let configuration: SyncServerConfiguration
    /// The time source for TTLs, expiry and timestamps.
    public let clock: any SyncServerClock
    /// Credentials that answer step delegations.
    public let credentials: CredentialStore
    /// Wakes devices after a command is queued.
    public let pushSender: any PushSender
    /// Encrypts resolved credentials at rest.
    public let sealer: SecretSealer
    /// The directory served under `/manifests/`, if any.
    public let publishDirectory: PublishDirectory?
    /// When the store was last pruned.
    let pruneSchedule = PruneSchedule()

    /// Creates a server.
    ///
    /// - Parameters:
    ///   - store: the store.
    ///   - configuration: limits and policies; SYNC.md §5 defaults.
    ///   - clock: the time source; the system clock by default.
    ///   - credentials: per-tenant credentials for delegations; none by default.
    ///   - pushSender: the push sender; ``NoPushSender`` by default.
    ///   - sealer: encrypts resolved credentials; a random key by default (sealed commands then
    ///     cannot be opened after a restart and are delivered as failed `step_result`s).
    ///   - publishDirectory: a directory to serve under `/manifests/`.
    public init(
        store: any SyncServerStore, configuration: SyncServerConfiguration = SyncServerConfiguration(),
        clock: any SyncServerClock = SystemSyncServerClock(), credentials: CredentialStore = CredentialStore(),
        pushSender: any PushSender = NoPushSender(), sealer: SecretSealer = .random(),
        publishDirectory: PublishDirectory? = nil
    ) {
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.credentials = credentials
        self.pushSender = pushSender
        self.sealer = sealer
        self.publishDirectory = publishDirectory
    }

    /// The router with every route and the JSON error middleware.
    ///
    /// - Returns: a router to serve, or to test with HummingbirdTesting.
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: JSONErrorMiddleware())
        let mobile = router.group("mobile")
        mobile.post("sync") { request, _ in try await self.handleSync(request) }
        mobile.post("devices/register") { request, _ in try await self.handleRegister(request) }
        mobile.get("devices") { request, _ in try await self.handleListDevices(request) }
        mobile.get("approvals") { request, _ in try await self.handleListApprovals(request) }
        mobile.post("approvals/{id}/resolve") { request, context in
            try await self.handleResolve(request, id: context.parameters.require("id"))
        }
        mobile.get("status") { request, _ in try await self.handleListStatuses(request) }
        mobile.post("commands") { request, _ in try await self.handleCreateCommand(request) }
        mobile.post("telemetry") { request, _ in try await self.handleTelemetry(request) }
        if publishDirectory != nil {
            router.get("manifests/**") { request, context in
                try self.handleManifestFile(request, path: context.parameters.getCatchAll().joined(separator: "/"))
            }
            // HEAD: what a CDN or a cache asks before fetching (the same headers, no body).
            router.head("manifests/**") { request, context in
                try self.handleManifestFile(request, path: context.parameters.getCatchAll().joined(separator: "/"), headersOnly: true)
            }
        }
        router.get("/") { request, _ in await self.handleDashboard(request) }
        router.post("dashboard/login") { request, _ in await self.handleDashboardLogin(request) }
        router.get("dashboard/logout") { _, _ in self.handleDashboardLogout() }
        router.post("dashboard/approvals/{id}/resolve") { request, context in
            await self.handleDashboardResolve(request, id: context.parameters.get("id") ?? "")
        }
        return router
    }

    /// An application serving ``makeRouter()``; `runService()` on it serves until SIGINT or
    /// SIGTERM, then shuts down gracefully.
    ///
    /// - Parameters:
    ///   - host: the address to bind; `127.0.0.1` by default (loopback only).
    ///   - port: the port; 0 picks a free one.
    ///   - logger: the server's logger.
    ///   - onServerRunning: called with the bound port once the server listens.
    /// - Returns: the application.
    public func makeApplication(
        host: String = "127.0.0.1", port: Int = 8080, logger: Logger = Logger(label: "stepwise.server"),
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: makeRouter(),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "stepwise"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// Serves on `host:port` until SIGINT or SIGTERM, then shuts down gracefully (open
    /// requests finish, the listener closes).
    ///
    /// ```swift
    /// try await server.run(host: "127.0.0.1", port: 8080) { port in print("listening on \(port)") }
    /// ```
    ///
    /// - Parameters:
    ///   - host: the address to bind; `127.0.0.1` by default.
    ///   - port: the port; 0 picks a free one.
    ///   - onServerRunning: called with the bound port once the server listens.
    /// - Throws: when the address cannot be bound or the server fails.
    public func run(
        host: String = "127.0.0.1", port: Int = 8080, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        var logger = Logger(label: "stepwise.server")
        logger.logLevel = .notice
        try await makeApplication(host: host, port: port, logger: logger, onServerRunning: onServerRunning).runService()
    }

    /// Prunes old rows at most once an hour, after a request.
    func pruneIfDue(now: Int64) async {
        guard pruneSchedule.claim(now: now, interval: 3_600_000) else { return }
        try? await store.prune(now: now, cutoff: now - configuration.retentionSeconds * 1000)
    }
}
