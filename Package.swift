// swift-tools-version: 6.0
import CompilerPluginSupport
import PackageDescription

let package = Package(
  name: "StateGraph",
  platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
  products: [
    .library(name: "StateGraph", targets: ["StateGraph"]),
    .library(name: "StateGraphNormalization", targets: ["StateGraphNormalization"]),
    .library(name: "TypedIdentifier", targets: ["TypedIdentifier"]),
    .executable(name: "StateGraphDemo", targets: ["StateGraphDemo"]),
  ],
  dependencies: [
    // A range, as macro libraries declare it, so that an app depending on another macro
    // package resolves one swift-syntax for both. `make test` runs the macro tests on the
    // lowest and the highest release of it (Tests/SwiftSyntaxRange/check.sh).
    .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0"),
    // Used by a test target only: SwiftPM does not resolve it for packages that depend on
    // this one (examples/consumer's Package.resolved does not list it).
    .package(url: "https://github.com/pointfreeco/swift-macro-testing", exact: "0.7.0"),
    // Property-based tests of persistence round trips; a test target's only, like the above.
    .package(url: "https://github.com/x-sheep/swift-property-based", exact: "2.0.1"),
  ],
  targets: [
    // C core: the dependency graph. Usable from C without Swift (see Makefile).
    .systemLibrary(
      name: "CGLib", path: "CSources/CGLib", pkgConfig: "glib-2.0",
      providers: [.apt(["libglib2.0-dev"]), .brew(["glib"])]),
    .target(
      name: "StateGraphCore", dependencies: ["CGLib"], path: "CSources/StateGraphCore"),

    // Swift wrapper, tracking, storage, Observation glue.
    .target(name: "StateGraph", dependencies: ["StateGraphCore", "StateGraphMacros"]),
    .macro(
      name: "StateGraphMacros",
      dependencies: [
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
        .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
      ]),

    // Normalization.
    .target(name: "TypedIdentifier"),
    .target(name: "StateGraphNormalization", dependencies: ["StateGraph", "TypedIdentifier"]),

    // The demo and the samples of upstream's README are written in the Swift 5 language mode,
    // as that README is. The demo's models (and the chapters that run them) are a library
    // of their own: the demo runs them, and SeedSamplesTests checks the same models.
    .target(
      name: "StateGraphDemoModels", dependencies: ["StateGraphNormalization"],
      swiftSettings: [.swiftLanguageMode(.v5)]),
    .executableTarget(
      name: "StateGraphDemo", dependencies: ["StateGraphDemoModels"],
      swiftSettings: [.swiftLanguageMode(.v5)]),

    // What the test targets share: counters, recorders, lifetime trackers, bounded waits.
    .target(name: "StateGraphTestSupport", path: "Tests/StateGraphTestSupport"),
    .testTarget(
      name: "StateGraphTests",
      dependencies: [
        "StateGraph", "StateGraphTestSupport",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]),
    .testTarget(
      name: "SeedSamplesTests",
      dependencies: ["StateGraphNormalization", "StateGraphDemoModels", "StateGraphTestSupport"],
      swiftSettings: [.swiftLanguageMode(.v5)]),
    // The code of the DocC articles, kept compiling and checked (see its Support.swift).
    .testTarget(
      name: "DocArticleTests", dependencies: ["StateGraphNormalization", "StateGraphTestSupport"],
      swiftSettings: [.swiftLanguageMode(.v5)]),
    .testTarget(
      name: "StateGraphMacrosTests",
      dependencies: [
        "StateGraphMacros",
        .product(name: "MacroTesting", package: "swift-macro-testing"),
      ]),
    .testTarget(
      name: "StateGraphNormalizationTests",
      dependencies: ["StateGraphNormalization", "StateGraphTestSupport"]),
  ]
)
