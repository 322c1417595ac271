// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "QuizDuel",
    products: [
        .library(name: "DuelCore", targets: ["DuelCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        // Pure rules: no I/O, no clock reads. Time is always an input.
        .target(name: "DuelCore"),
        .testTarget(
            name: "DuelCoreTests",
            dependencies: [
                "DuelCore",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
