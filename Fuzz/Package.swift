// swift-tools-version: 6.1
import PackageDescription

/// The same strict settings as the root package.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// libFuzzer targets for every parser that takes bytes from the network. Build with
// `Fuzz/build.sh` (it explains its flags) or let `Fuzz/run.sh` build; libFuzzer supplies
// `main`, each target exports `LLVMFuzzerTestOneInput`. See README.md.
let package = Package(
    name: "StepwiseFuzz",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "fuzz-json", targets: ["FuzzJSON"]),
        .executable(name: "fuzz-sequence", targets: ["FuzzSequence"]),
        .executable(name: "fuzz-expression", targets: ["FuzzExpression"]),
        .executable(name: "fuzz-template", targets: ["FuzzTemplate"]),
        .executable(name: "fuzz-manifest", targets: ["FuzzManifest"]),
        .executable(name: "fuzz-sync-response", targets: ["FuzzSyncResponse"]),
    ],
    dependencies: [
        // The root package, by path; named so the product reference does not depend on the
        // name of the directory the repository is cloned into.
        .package(name: "Stepwise", path: ".."),
    ],
    targets: [
        // Invariant checks and the evaluation scope shared by the targets.
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "Stepwise", package: "Stepwise")],
            swiftSettings: strictSettings
        ),
        // One executable per parser; each is a single file that is not `main.swift`, so it is
        // compiled as a library and libFuzzer's `main` drives it.
        .executableTarget(name: "FuzzJSON", dependencies: ["FuzzSupport"], swiftSettings: strictSettings),
        .executableTarget(name: "FuzzSequence", dependencies: ["FuzzSupport"], swiftSettings: strictSettings),
        .executableTarget(name: "FuzzExpression", dependencies: ["FuzzSupport"], swiftSettings: strictSettings),
        .executableTarget(name: "FuzzTemplate", dependencies: ["FuzzSupport"], swiftSettings: strictSettings),
        .executableTarget(name: "FuzzManifest", dependencies: ["FuzzSupport"], swiftSettings: strictSettings),
        .executableTarget(name: "FuzzSyncResponse", dependencies: ["FuzzSupport"], swiftSettings: strictSettings),
    ]
)
