// swift-tools-version: 6.0
import PackageDescription

// The benchmark runner: its own package, so `swift run -c release` here never
// rebuilds the main package's debug products and the main package keeps no
// benchmark-only targets.
let package = Package(
  name: "StateGraphBenchmarks",
  platforms: [.macOS(.v14)],
  dependencies: [
    // `name:` pins the identity, so the clone's directory name does not matter.
    .package(name: "StateGraph", path: "..")
  ],
  targets: [
    // Counts malloc/calloc/realloc/free while counting is switched on.
    .target(name: "MallocCounter", path: "Sources/MallocCounter"),
    .executableTarget(
      name: "StateGraphBenchmarks",
      dependencies: [
        .product(name: "StateGraph", package: "StateGraph"),
        .product(name: "StateGraphNormalization", package: "StateGraph"),
        "MallocCounter",
      ],
      path: "Sources/StateGraphBenchmarks"),
  ]
)
