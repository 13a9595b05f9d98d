// swift-tools-version: 6.1
import PackageDescription

/// The same strict settings as the root package.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

// Run in release: `swift run -c release --package-path Benchmarks stepwise-benchmarks [filter] [--json]`.
let package = Package(
    name: "StepwiseBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "stepwise-benchmarks", targets: ["StepwiseBenchmarks"]),
    ],
    dependencies: [
        // The root package, by path; named so the product reference does not depend on the
        // name of the directory the repository is cloned into.
        .package(name: "Stepwise", path: ".."),
    ],
    targets: [
        // libsodium itself, for the raw-verify baseline of the sync benchmarks.
        .systemLibrary(name: "CSodiumRaw", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        // The timing and memory harness: no dependency on Stepwise.
        .target(name: "BenchmarkHarness", swiftSettings: strictSettings),
        // The benchmarks themselves, one file per area.
        .executableTarget(
            name: "StepwiseBenchmarks",
            dependencies: [
                "BenchmarkHarness", "CSodiumRaw",
                .product(name: "Stepwise", package: "Stepwise"),
                .product(name: "StepwiseServer", package: "Stepwise"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
