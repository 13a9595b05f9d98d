public import ArgumentParser
import Foundation
import StepwiseCrypto
import StepwiseJSON
import StepwiseServer
import Synchronization

/// `stepwise serve`: runs the reference sync server (SYNC.md §5) on a SQLite file.
///
/// It serves orch8's `/mobile/*` endpoints, optionally a publish directory under `/manifests/`,
/// and a web page at `/` (devices, instance timelines, pending approvals with buttons). It binds
/// `127.0.0.1` by default, prints the URL and the API key in use (generating one, saved in the
/// database, when none is given) and stops gracefully on Ctrl-C or SIGTERM.
///
/// Exit status: 0 after a clean shutdown; 2 for unusable input (database, key files,
/// credentials, publish directory) or an address that cannot be bound.
public struct ServeCommand: AsyncParsableCommand {
    /// The command's name, abstract and discussion.
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the reference sync server: device sync, approvals, commands and a web page.",
        discussion: """
            Devices sync with POST /mobile/sync (x-api-key, x-device-id); operators use GET /mobile/devices, \
            /mobile/approvals, /mobile/status, POST /mobile/approvals/{id}/resolve and /mobile/commands, or the web page \
            at / (open /?key=API_KEY once: the key is then kept in an HttpOnly cookie). --api-key keys belong to the \
            tenant 'default'; without --api-key or --tenant-key a key is generated once and saved in the database. \
            --credentials FILE is JSON {"<tenant>": {"<id>": "<secret>" | {"<field>": "<secret>"}}} and answers \
            step delegations (credentials://<id>[/<field>]); resolved secrets are stored only encrypted with the key \
            in --secrets-key (created with mode 0600 if missing). Push providers apns and fcm only log the push \
            they would send (no APNs/FCM access from here). Stop with Ctrl-C or SIGTERM.
            """
    )

    @Option(help: "Port to listen on (0 picks a free one).")
    var port: Int = 8080

    @Option(help: "Address to bind. Keep the loopback default unless a TLS proxy fronts the server.")
    var host: String = "127.0.0.1"

    @Option(help: ArgumentHelp("The server's SQLite database file.", valueName: "path"))
    var db: String = "server.db"

    @Option(name: .customLong("api-key"), help: ArgumentHelp("An API key of the tenant 'default'. Repeatable.", valueName: "key"))
    var apiKeys: [String] = []

    @Option(
        name: .customLong("tenant-key"),
        help: ArgumentHelp("An API key of another tenant, as TENANT:KEY. Repeatable.", valueName: "tenant:key"))
    var tenantKeys: [String] = []

    @Option(
        name: .customLong("admin-key"),
        help: ArgumentHelp("An admin key (names its tenant with X-Tenant-Id). Repeatable.", valueName: "key"))
    var adminKeys: [String] = []

    @Option(help: ArgumentHelp("Serve this publish directory under /manifests/.", valueName: "dir"))
    var publishDir: String?

    @Option(help: ArgumentHelp("Credentials JSON for step delegations.", valueName: "file"))
    var credentials: String?

    @Option(
        name: .customLong("credential"),
        help: ArgumentHelp("A credential of the tenant 'default', as ID=SECRET. Repeatable.", valueName: "id=secret"))
    var credentialValues: [String] = []

    @Option(help: ArgumentHelp("File with the 32-byte key that encrypts resolved secrets (default: <db>.secrets-key).", valueName: "file"))
    var secretsKey: String?

    @Option(help: ArgumentHelp("Push provider: none, apns or fcm (apns/fcm log the push they would send).", valueName: "provider"))
    var pushProvider: String = "none"

    @Option(help: ArgumentHelp("Command TTL in seconds (default 7 days).", valueName: "seconds"))
    var commandTtl: Int64 = 7 * 86_400

    @Option(help: ArgumentHelp("Approval TTL in seconds for approvals without timeout_seconds (default 1 day).", valueName: "seconds"))
    var approvalTtl: Int64 = 86_400

    @Option(help: "The most devices per tenant.")
    var maxDevices: Int = 1000

    @Option(help: ArgumentHelp("Command encoding in sync responses: nested (Stepwise) or flat (orch8 seed form).", valueName: "format"))
    var commandFormat: String = "nested"

    /// Creates the command with its defaults (ArgumentParser fills the options).
    public init() {}

    /// Refuses out-of-range options before anything is opened.
    ///
    /// - Throws: `ValidationError` naming the option.
    public func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard PushProvider(rawValue: pushProvider) != nil else { throw ValidationError("--push-provider must be none, apns or fcm") }
        guard CommandFormat(rawValue: commandFormat) != nil else { throw ValidationError("--command-format must be nested or flat") }
        guard commandTtl > 0, approvalTtl > 0 else { throw ValidationError("TTLs must be positive") }
        guard maxDevices > 0 else { throw ValidationError("--max-devices must be positive") }
        // A blank key would be stored and printed, yet no request could present it.
        guard apiKeys.allSatisfy({ !$0.trimmingCharacters(in: .whitespaces).isEmpty }),
            adminKeys.allSatisfy({ !$0.trimmingCharacters(in: .whitespaces).isEmpty })
        else { throw ValidationError("an --api-key or --admin-key is empty") }
    }

    /// Opens the database, installs the keys, and serves until SIGINT or SIGTERM.
    ///
    /// - Throws: `ExitCode(2)` for unusable input or a failed server.
    public func run() async throws {
        let prepared: PreparedServer
        do throws(CommandFailure) {
            prepared = try await prepare()
        } catch {
            error.output.writeNow()
            throw ExitCode(error.exitCode)
        }
        let host = self.host
        let banner = prepared.banner
        let isLoopback = ["127.0.0.1", "localhost", "::1"].contains(host)
        do {
            try await prepared.server.run(host: host, port: port) { boundPort in
                prepared.listened()
                let hostText = host.contains(":") ? "[\(host)]" : host
                var text = "Stepwise sync server listening on http://\(hostText):\(boundPort)/\n"
                text += banner
                text += "Web page: http://\(hostText):\(boundPort)/?key=\(prepared.pageKey)\n"
                if !isLoopback {
                    text += "warning: \(host) is not loopback and this server speaks plain HTTP; put a TLS proxy in front.\n"
                }
                text += "Stop with Ctrl-C.\n"
                CommandOutput(standardOutput: text).writeNow()
            }
        } catch {
            // A server that never listened leaves no trace: files this run created go again.
            if !prepared.hasListened { prepared.removeCreatedFiles() }
            let text = "\(error)"
            let message = text.contains("Address already in use") || text.contains("errno: 98")
                ? "cannot listen on \(host):\(port): the address is already in use (another server there? choose another --port)"
                : "the server failed: \(text)"
            CommandOutput(standardError: "error: \(message)\n", exitCode: 2).writeNow()
            throw ExitCode(2)
        }
        CommandOutput(standardOutput: "Server stopped.\n").writeNow()
    }

    /// The server and what to print about it.
    final class PreparedServer: Sendable {
        let server: SyncServer
        let banner: String
        /// A key for the web page link (the first tenant key in use).
        let pageKey: String
        /// Files this run created (a new database and its secrets key), removed when the
        /// server cannot start.
        let createdFiles: [String]
        private let listening = Mutex(false)

        init(server: SyncServer, banner: String, pageKey: String, createdFiles: [String]) {
            self.server = server
            self.banner = banner
            self.pageKey = pageKey
            self.createdFiles = createdFiles
        }

        /// Whether the server got as far as listening.
        var hasListened: Bool { listening.withLock { $0 } }

        func listened() { listening.withLock { $0 = true } }

        func removeCreatedFiles() {
            for path in createdFiles { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    /// Opens the store, installs the keys and builds the server.
    func prepare() async throws(CommandFailure) -> PreparedServer {
        let clock = SystemSyncServerClock()
        var createdFiles: [String] = []
        if !FileManager.default.fileExists(atPath: db) { createdFiles += ["", "-wal", "-shm"].map { db + $0 } }
        let keyPath = secretsKey ?? db + ".secrets-key"
        if !FileManager.default.fileExists(atPath: keyPath) { createdFiles.append(keyPath) }
        let store: SQLiteSyncServerStore
        do {
            store = try SQLiteSyncServerStore(path: db)
        } catch {
            throw CommandFailure(error.message, exitCode: 2)
        }
        var banner = "Database: \(db)\n"
        var pageKey: String?
        do throws(SyncServerError) {
            for key in apiKeys {
                try await store.addAPIKey(key, grant: .tenant(.defaultTenant), now: clock.now())
                banner += "API key (tenant default): \(key)\n"
                pageKey = pageKey ?? key
            }
            for entry in tenantKeys {
                guard let colon = entry.firstIndex(of: ":"), let tenant = TenantID(rawValue: String(entry[..<colon])),
                    entry.index(after: colon) < entry.endIndex
                else {
                    throw SyncServerError(.badRequest, "--tenant-key '\(entry)' is not TENANT:KEY with a valid tenant id")
                }
                let key = String(entry[entry.index(after: colon)...])
                try await store.addAPIKey(key, grant: .tenant(tenant), now: clock.now())
                banner += "API key (tenant \(tenant)): \(key)\n"
                pageKey = pageKey ?? key
            }
            for key in adminKeys {
                try await store.addAPIKey(key, grant: .admin, now: clock.now())
                banner += "Admin key (send X-Tenant-Id): \(key)\n"
            }
            if apiKeys.isEmpty && tenantKeys.isEmpty {
                let key: String
                if let saved = try await store.setting("generated_api_key") {
                    key = saved
                    banner += "API key (tenant default, generated earlier, saved in \(db)): \(key)\n"
                } else {
                    key = ServerIdentifier.makeAPIKey()
                    try await store.setSetting("generated_api_key", value: key)
                    banner += "API key (tenant default, generated now and saved in \(db)): \(key)\n"
                }
                try await store.addAPIKey(key, grant: .tenant(.defaultTenant), now: clock.now())
                pageKey = key
            }
        } catch {
            throw CommandFailure(error.message, exitCode: 2)
        }

        var credentialStore = CredentialStore()
        if let credentials {
            do {
                let bytes = try InputFiles.read(credentials)
                credentialStore = try CredentialStore(json: JSONParser.parse(bytes))
            } catch {
                throw CommandFailure("cannot use --credentials \(credentials): \(error)", exitCode: 2)
            }
        }
        for entry in credentialValues {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex, !entry[..<equals].contains("/") else {
                throw CommandFailure("--credential '\(entry.prefix { $0 != "=" })' is not ID=SECRET", exitCode: 2)
            }
            credentialStore.set(.string(String(entry[entry.index(after: equals)...])), id: String(entry[..<equals]), tenant: .defaultTenant)
        }
        if credentials != nil || !credentialValues.isEmpty {
            banner += "Credentials for delegations: \(credentialStore.count(for: .defaultTenant)) in tenant default\n"
        }

        let sealer = try loadSealer(path: keyPath)

        var publishDirectory: PublishDirectory?
        if let publishDir {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: publishDir, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw CommandFailure("--publish-dir \(publishDir) is not a directory", exitCode: 2)
            }
            publishDirectory = PublishDirectory(path: publishDir)
            banner += "Publish directory: \(publishDir) at /manifests/ (manifest: /manifests/manifest.json)\n"
        }

        let provider = PushProvider(rawValue: pushProvider) ?? .none
        let pushSender: any PushSender
        switch provider {
        case .none:
            pushSender = NoPushSender()
        case .apns, .fcm:
            pushSender = LoggingPushSender(provider: provider) { line in
                CommandOutput(standardError: line + "\n").writeNow()
            }
            banner += "Push: \(provider.rawValue) (logged only: this server cannot reach \(provider == .apns ? "APNs" : "FCM"))\n"
        }

        var configuration = SyncServerConfiguration()
        configuration.commandTTLSeconds = commandTtl
        configuration.approvalTTLSeconds = approvalTtl
        configuration.maxDevicesPerTenant = maxDevices
        configuration.commandFormat = CommandFormat(rawValue: commandFormat) ?? .nested
        let server = SyncServer(
            store: store, configuration: configuration, clock: clock, credentials: credentialStore, pushSender: pushSender,
            sealer: sealer, publishDirectory: publishDirectory)
        return PreparedServer(
            server: server, banner: banner, pageKey: HTMLQuery.encode(pageKey ?? ""), createdFiles: createdFiles)
    }

    /// The secrets key from `path` (base64 of 32 bytes), created with mode 0600 when missing.
    func loadSealer(path: String) throws(CommandFailure) -> SecretSealer {
        if FileManager.default.fileExists(atPath: path) {
            do {
                let text = String(decoding: try InputFiles.read(path), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                guard let key = Base64.decode(text) else {
                    throw CommandFailure("\(path) is not base64", exitCode: 2)
                }
                return try SecretSealer(key: key)
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure("cannot use the secrets key \(path): \(error)", exitCode: 2)
            }
        }
        let key = SecretSealer.randomBytes(SecretSealer.keyLength)
        do {
            try KeyFiles.writeAtomically(Array((Base64.encode(key) + "\n").utf8), to: path, mode: 0o600)
            return try SecretSealer(key: key)
        } catch {
            throw CommandFailure("cannot create the secrets key \(path): \(error)", exitCode: 2)
        }
    }
}

/// Percent-encoding for the printed web page link.
enum HTMLQuery {
    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }
}
