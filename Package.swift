// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "QuizDuel",
    products: [
        .library(name: "DuelCore", targets: ["DuelCore"]),
        .library(name: "DuelStore", targets: ["DuelStore"]),
        .library(name: "DuelServer", targets: ["DuelServer"]),
        .library(name: "DuelClient", targets: ["DuelClient"]),
        .executable(name: "duel-server", targets: ["duel-server"]),
        .executable(name: "duel-bots", targets: ["duel-bots"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
    ],
    targets: [
        // C libraries, fenced: only the thin wrapper files import these.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CLibWebSockets", pkgConfig: "libwebsockets", providers: [.apt(["libwebsockets-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CEpoll"),
        // The kernel's TCP round trip (issue 26), compiled apart: see its header.
        .target(name: "CTCPInfo"),

        // Pure rules: no I/O, no clock reads. Time is always an input.
        // The rules engine is optimized in debug builds too: the suite's property tests play
        // thousands of random games through it, 6.4 minutes of CI at -Onone. Its checks are
        // preconditions, which -O keeps (without their messages). An unsafe flag also means no
        // other package can depend on this one by version; none does.
        .target(name: "DuelCore", swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // Postgres: libpq wrapper, migrations, queries, embedded launcher.
        .target(
            name: "DuelStore",
            dependencies: ["DuelCore", "CLibPQ", .product(name: "Logging", package: "swift-log")]
        ),
        // The WebSocket service: lws wrapper, sessions, auth, routing, timers, fan-out, HTTP.
        .target(
            name: "DuelServer",
            dependencies: [
                "DuelCore", "DuelStore", "CLibWebSockets", "CSodium", "CTCPInfo",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A client of the protocol on libwebsockets, for tests and bots.
        .target(name: "DuelClient", dependencies: ["DuelCore", "CLibWebSockets"]),
        // Load-test bots that play by the rules and measure (library, so tests can run a fleet).
        .target(
            name: "DuelBots",
            dependencies: ["DuelClient", "DuelCore", "CEpoll", .product(name: "Histogram", package: "hdrhistogram-swift")]
        ),
        .executableTarget(
            name: "duel-bots",
            dependencies: ["DuelBots", "DuelCore", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .executableTarget(
            name: "duel-server",
            dependencies: [
                "DuelServer", "DuelCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "DuelCoreTests",
            dependencies: [
                "DuelCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        // A throwaway Postgres for the test targets (never shipped).
        .target(name: "TestSupport", dependencies: ["DuelStore"]),
        .testTarget(name: "DuelBotsTests", dependencies: ["DuelBots", "DuelCore"]),
        .testTarget(name: "DuelStoreTests", dependencies: ["DuelStore", "DuelCore", "TestSupport"]),
        .testTarget(
            name: "DuelServerTests",
            dependencies: ["DuelServer", "DuelClient", "DuelBots", "DuelStore", "DuelCore", "TestSupport", "CTCPInfo"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
