import Foundation
import MacroTesting
import Testing

/// `$name` of a `@GraphComputed` property can be assigned only inside the type's own
/// declaration (its initialisers): no other code can swap a model's computation. Checked
/// on the expansion, and by running the type checker with the built macro plugin on a
/// small program: the control (assignment in `init`) must pass, so a failure can only
/// come from the assignment outside.
@Suite(.macros(graphMacros, indentationWidth: .spaces(2)))
struct GraphComputedSetterAccessTests {
  @Test func fileprivatePropertiesGetAPrivateSetterToo() {
    assertMacro {
      """
      final class Cart {
        @GraphComputed fileprivate var total: Int
      }
      """
    } expansion: {
      """
      final class Cart {
        fileprivate var total: Int {
          get {
            $total.wrappedValue
          }
        }

        @GraphIgnored private var _total: StateGraph.Computed<Int>? = nil

        @GraphIgnored fileprivate private(set) var $total: StateGraph.Computed<Int> {
          get {
            guard let node = _total else {
              Swift.preconditionFailure("@GraphComputed 'total' was read before it was given a computation; assign 'self.$total = .init { _ in ... }' in init")
            }
            return node
          }
          set {
            _total = newValue
          }
        }
      }
      """
    }
  }

  /// Stands in for the StateGraph module: the expansion names `StateGraph.Computed`.
  static let module = """
    @attached(accessor, names: named(get))
    @attached(peer, names: prefixed(_), prefixed(`$`))
    public macro GraphComputed() = #externalMacro(module: "StateGraphMacros", type: "GraphComputedMacro")
    @attached(peer)
    public macro GraphIgnored() = #externalMacro(module: "StateGraphMacros", type: "GraphIgnoredMacro")
    public final class Computed<Value> {
      let compute: (Int) -> Value
      public init(_ compute: @escaping (Int) -> Value) { self.compute = compute }
      public var wrappedValue: Value { compute(0) }
    }
    public final class Model {
      @GraphComputed public var total: Int
      public init() {
        self.$total = .init { _ in 1 }
      }
    }
    let model = Model()
    _ = model.total
    """

  @Test(.timeLimit(.minutes(2)))
  func assigningInTheTypesInitialiserCompiles() throws {
    let result = try typeCheck(Self.module)
    #expect(result.status == 0, "\(result.output)")
  }

  @Test(.timeLimit(.minutes(2)))
  func assigningFromOutsideDoesNotCompile() throws {
    let result = try typeCheck(Self.module + "\nmodel.$total = .init { _ in 2 }\n")
    #expect(result.status != 0)
    #expect(result.output.contains("error:"), "\(result.output)")
    #expect(result.output.contains("setter is inaccessible"), "\(result.output)")
  }

  /// Runs `swiftc -typecheck` on `program` with the macro plugin that `swift build` made,
  /// found next to the test bundle.
  private func typeCheck(_ program: String) throws -> (status: Int32, output: String) {
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    var plugin = products.appendingPathComponent("StateGraphMacros-tool")
    if !FileManager.default.isExecutableFile(atPath: plugin.path) {
      // Run through a helper (`swift test` on Linux): look beside the bundle.
      plugin = URL(fileURLWithPath: Bundle.main.bundlePath).deletingLastPathComponent()
        .appendingPathComponent("StateGraphMacros-tool")
    }
    try #require(
      FileManager.default.isExecutableFile(atPath: plugin.path),
      "the macro plugin is built with the package: \(plugin.path)")
    let scratch = FileManager.default.temporaryDirectory
      .appendingPathComponent("graph-computed-access-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let main = scratch.appendingPathComponent("main.swift")
    try program.write(to: main, atomically: true, encoding: .utf8)

    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "swiftc", "-typecheck", "-module-name", "StateGraph",
      "-load-plugin-executable", plugin.path + "#StateGraphMacros", main.path,
    ]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
  }
}
