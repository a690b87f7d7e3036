// swift-tools-version: 6.0
// A package that uses StateGraph the way an app does: through its products only, next to
// a macro of its own that pins swift-syntax to another release than StateGraph's tests
// resolve. `make test-consumer` builds and runs it; a change that breaks what a consumer
// sees (a product, a macro expansion, a public name) fails there. Its product lines are
// the ones StateGraph.docc/GettingStarted.md shows.
import CompilerPluginSupport
import PackageDescription

let package = Package(
  name: "Consumer",
  platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10)],
  dependencies: [
    // An app names the repository instead:
    // .package(url: "https://example.com/StateGraph.git", from: "0.1.0"),
    .package(name: "StateGraph", path: "../.."),
    // The app's own macro library already depends on swift-syntax.
    .package(url: "https://github.com/swiftlang/swift-syntax", exact: "602.0.0"),
  ],
  targets: [
    .executableTarget(
      name: "Consumer",
      dependencies: [
        .product(name: "StateGraph", package: "StateGraph"),
        .product(name: "StateGraphNormalization", package: "StateGraph"),
        "ConsumerMacros",
      ]
    ),
    .target(name: "ConsumerMacros", dependencies: ["ConsumerMacrosPlugin"]),
    .macro(
      name: "ConsumerMacrosPlugin",
      dependencies: [
        .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
        .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
      ]
    ),
  ]
)
