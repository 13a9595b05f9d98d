// swift-tools-version: 6.1
import PackageDescription

/// Compiler settings shared by every Swift target: the public surface is chosen on purpose
/// (`InternalImportsByDefault`), existentials are spelled out, and imports are explicit.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Stepwise",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "Stepwise", targets: ["Stepwise"]),
        // The reference sync server, for embedding in a Hummingbird application.
        .library(name: "StepwiseServer", targets: ["StepwiseServer"]),
        .executable(name: "stepwise", targets: ["StepwiseTool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Declared because the server imports them directly (Hummingbird brings them anyway).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // C shims: the only places that see C types.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),

        // JSON values and their codec. No dependencies.
        .target(name: "StepwiseJSON", swiftSettings: strictSettings),
        // SHA-256, Ed25519, base64 and hex over libsodium.
        .target(name: "StepwiseCrypto", dependencies: ["CSodium"], swiftSettings: strictSettings),
        // The expression language and templates.
        .target(
            name: "StepwiseExpressions",
            dependencies: ["StepwiseJSON", "StepwiseCrypto"],
            swiftSettings: strictSettings
        ),
        // Sequence documents: block AST, decoding, validation, compilation.
        .target(
            name: "StepwiseSequences",
            dependencies: ["StepwiseJSON", "StepwiseExpressions"],
            swiftSettings: strictSettings
        ),
        // The engine: execution tree as pure transitions, scheduler, handler dispatch, behind a store protocol.
        .target(
            name: "StepwiseExecution",
            dependencies: ["StepwiseJSON", "StepwiseExpressions", "StepwiseSequences", "StepwiseCrypto"],
            swiftSettings: strictSettings
        ),
        // SQLite: a thin wrapper over the C API, migrations, and the execution store.
        .target(
            name: "StepwiseSQLite",
            dependencies: ["CSQLite", "StepwiseJSON", "StepwiseExecution"],
            swiftSettings: strictSettings
        ),
        // Signed manifests (Ed25519) and the device-server sync channel.
        .target(
            name: "StepwiseSync",
            dependencies: ["StepwiseJSON", "StepwiseCrypto", "StepwiseSequences", "StepwiseExecution"],
            swiftSettings: strictSettings
        ),
        // The reference sync server (Hummingbird 2, SQLite storage behind a store protocol).
        .target(
            name: "StepwiseServer",
            dependencies: [
                "StepwiseJSON", "StepwiseCrypto", "StepwiseSQLite", "CSodium",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Crash-point torture harness: a mixed workload killed at every commit boundary.
        .target(
            name: "StepwiseTorture",
            dependencies: ["Stepwise"],
            swiftSettings: strictSettings
        ),
        // The host-facing umbrella module.
        .target(
            name: "Stepwise",
            dependencies: [
                "StepwiseCrypto", "StepwiseJSON", "StepwiseExpressions", "StepwiseSequences", "StepwiseExecution", "StepwiseSQLite",
                "StepwiseSync",
            ],
            swiftSettings: strictSettings
        ),
        // The conformance runner: case files → a real engine on a temporary SQLite file with a virtual clock.
        .target(
            name: "StepwiseConformance",
            dependencies: ["Stepwise"],
            swiftSettings: strictSettings
        ),
        // The CLI commands, as a library so tests run them in-process.
        .target(
            name: "StepwiseCommands",
            dependencies: [
                "Stepwise",
                "StepwiseConformance",
                "StepwiseServer",
                "StepwiseTorture",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        // The thin `stepwise` executable.
        .executableTarget(name: "StepwiseTool", dependencies: ["StepwiseCommands"], swiftSettings: strictSettings),

        // Test support: helpers shared by test targets (not a product).
        .target(
            name: "StepwiseTesting",
            dependencies: ["StepwiseJSON", "StepwiseSequences"],
            swiftSettings: strictSettings
        ),

        .testTarget(name: "StepwiseJSONTests", dependencies: ["StepwiseJSON"], swiftSettings: strictSettings),
        .testTarget(name: "StepwiseCryptoTests", dependencies: ["StepwiseCrypto"], swiftSettings: strictSettings),
        .testTarget(
            name: "StepwiseExpressionsTests",
            dependencies: ["StepwiseExpressions", "StepwiseJSON"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StepwiseSequencesTests",
            dependencies: ["StepwiseSequences", "StepwiseJSON"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StepwiseSchemaTests",
            dependencies: [
                "StepwiseTesting", "StepwiseSequences", "StepwiseJSON", "StepwiseConformance", "Stepwise", "StepwiseCommands",
                "StepwiseServer", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StepwiseSQLiteTests",
            dependencies: ["StepwiseSQLite", "StepwiseJSON", "StepwiseExecution"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StepwiseExecutionTests",
            dependencies: ["Stepwise", "StepwiseTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StepwiseSyncTests",
            dependencies: ["StepwiseSync", "StepwiseCrypto", "StepwiseJSON", "Stepwise"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StepwiseServerTests",
            dependencies: [
                "StepwiseServer", "StepwiseJSON", "StepwiseTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StepwiseConformanceTests",
            dependencies: ["StepwiseConformance", "Stepwise"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StepwiseDurabilityTests",
            dependencies: ["Stepwise", "StepwiseTool", "StepwiseTorture", "StepwiseTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StepwiseEndToEndTests",
            dependencies: ["Stepwise", "StepwiseTool", "StepwiseTesting", "StepwiseTorture"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StepwiseHostileTests",
            dependencies: ["Stepwise", "StepwiseTesting", "StepwiseCrypto"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StepwiseCommandsTests",
            dependencies: [
                "StepwiseCommands", "Stepwise", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
