import Foundation
import Testing

/// In the Swift 6 language mode, nodes are `Sendable` exactly when their values are: a
/// node holding a class that is not `Sendable` cannot be handed to another thread, so
/// code that would race does not compile. Checked by running the type checker, in the
/// Swift 6 mode, on small programs built against the modules `swift build` made. The
/// control program must pass, so a failure can only come from the line under test.
@Suite("Sendable checking")
struct SendableCheckingTests {
  static let declarations = """
    import StateGraph
    import StateGraphNormalization

    final class Tally { var count = 0 }  // not Sendable: racy when shared
    final class Frozen: Sendable { let count = 0 }
    struct Note: TypedIdentifiable, Sendable {
      typealias TypedIdentifierRawValue = String
      let typedID: TypedID
    }
    final class Shelf: TypedIdentifiable {  // not Sendable
      typealias TypedIdentifierRawValue = String
      let typedID: TypedID
      init(id: String) { typedID = .init(id) }
    }
    func share(_ body: @escaping @Sendable () -> Void) { Thread { body() }.start() }
    import Foundation

    """

  @Test(.timeLimit(.minutes(3)))
  func sendableValuesCrossThreads() throws {
    let result = try typeCheck(
      Self.declarations + "func check() {\n" + """
        let number = Stored(wrappedValue: 0)
        let frozen = Stored(wrappedValue: Frozen())
        let doubled = Computed { _ in number.wrappedValue * 2 }
        let notes = EntityStore<Note>()
        share { number.wrappedValue += 1 }
        share { _ = frozen.wrappedValue.count + doubled.wrappedValue }
        share { notes.add(Note(typedID: "a")) }
        let mapped = number.map { _, value in value + 1 }
        share { _ = mapped.wrappedValue }
        """ + "\n}\n")
    #expect(result.status == 0, "\(result.output)")
  }

  @Test(.timeLimit(.minutes(3)))
  func aStoredNonSendableValueDoesNotCrossThreads() throws {
    let result = try typeCheck(
      Self.declarations + "func check() {\n" + """
        let tally = Stored(wrappedValue: Tally())
        share { tally.wrappedValue.count += 1 }
        """ + "\n}\n")
    #expect(result.status != 0)
    #expect(result.output.contains("non-Sendable type 'Stored<Tally>'"), "\(result.output)")
  }

  @Test(.timeLimit(.minutes(3)))
  func aComputedNonSendableValueDoesNotCrossThreads() throws {
    let result = try typeCheck(
      Self.declarations + "func check() {\n" + """
        let tally = Computed { _ in Tally() }
        share { tally.wrappedValue.count += 1 }
        """ + "\n}\n")
    #expect(result.status != 0)
    #expect(result.output.contains("non-Sendable type 'Computed<Tally>'"), "\(result.output)")
  }

  @Test(.timeLimit(.minutes(3)))
  func aStoreOfNonSendableEntitiesDoesNotCrossThreads() throws {
    let result = try typeCheck(
      Self.declarations + "func check() {\n" + """
        let shelves = EntityStore<Shelf>()
        share { shelves.add(Shelf(id: "a")) }
        """ + "\n}\n")
    #expect(result.status != 0)
    #expect(
      result.output.contains("non-Sendable type 'EntityStore<Shelf>'"), "\(result.output)")
  }

  /// A handler takes the isolation of the code that registers it: on the main actor or in
  /// an actor it may touch that actor's state with no annotation; outside any actor it is
  /// `@Sendable`, and state it shares with other code must be (a lock-protected tally here).
  @Test(.timeLimit(.minutes(3)))
  func handlersCompileWithTheirRegistrationsIsolation() throws {
    let result = try typeCheck(
      Self.declarations + """
        final class Ledger: @unchecked Sendable {  // lock-protected
          private let lock = NSLock()
          private var total = 0
          func add(_ value: Int) { lock.withLock { total += value } }
        }
        @MainActor final class Screen {
          @GraphStored var count: Int = 0
          var label = ""
          var history: [Int] = []
          var subscription: StateGraphSubscription?
          func bind() {
            let tally = Tally()  // not Sendable, yet only the main actor touches it
            subscription = withGraphTracking {
              $count.onChange { self.history.append($0); tally.count += 1 }
              $count.onChange(filter: PassthroughFilter()) { self.label = "\\($0)" }
              withGraphTrackingGroup { self.label = "\\(self.count)" }
              withGraphTrackingMap({ self.count * 2 }) { self.history.append($0) }
              withGraphTrackingMap(from: self, map: { $0.count }) { self.label = "\\($0)" }
            }
          }
        }
        actor Totals {
          let count = Stored(wrappedValue: 0)
          var total = 0
          var subscription: StateGraphSubscription?
          func bind() {
            subscription = withGraphTracking {
              count.onChange { self.total += $0 }
              withGraphTrackingGroup { self.total = self.count.wrappedValue }
              withGraphTrackingMap({ self.count.wrappedValue }) { self.total -= $0 }
            }
          }
        }
        func count(node: Stored<Int>) async {
          let calls = Ledger()
          let subscription = withGraphTracking {
            node.onChange { _ in calls.add(1) }
            withGraphTrackingGroup { calls.add(node.wrappedValue) }
            withGraphTrackingMap({ node.wrappedValue }) { calls.add($0) }
          }
          let writer = Task.detached { for i in 1...200_000 { node.wrappedValue = i } }
          for _ in 0..<200_000 { calls.add(1) }
          await writer.value
          subscription.cancel()
        }
        """)
    #expect(result.status == 0, "\(result.output)")
  }

  /// Outside any actor, writers on any thread run a handler, so one that mutates a `var` of
  /// the registering code would race with it (below, the writer's thread and the loop both
  /// write `calls`): each form of handler is `@Sendable` there, and this does not compile.
  @Test(
    .timeLimit(.minutes(3)),
    arguments: [
      "node.onChange { _ in calls += 1 }",
      "withGraphTrackingGroup { _ = node.wrappedValue; calls += 1 }",
      "withGraphTrackingMap({ node.wrappedValue }) { _ in calls += 1 }",
      "withGraphTrackingMap({ calls += 1; return node.wrappedValue }) { _ in }",
    ])
  func aHandlerOutsideAnyActorCannotMutateACapturedVar(registration: String) throws {
    let result = try typeCheck(
      Self.declarations + """
        func count(node: Stored<Int>) async {
          var calls = 0
          let subscription = withGraphTracking {
            \(registration)
          }
          let writer = Task.detached { for i in 1...200_000 { node.wrappedValue = i } }
          for _ in 0..<200_000 { calls += 1 }
          await writer.value
          subscription.cancel()
        }
        """)
    #expect(result.status != 0)
    #expect(
      result.output.contains(
        "error: mutation of captured var 'calls' in concurrently-executing code"),
      "\(result.output)")
  }

  /// Nor may such a handler capture a value that is not `Sendable`, from a synchronous
  /// function either: the registering code keeps using it.
  @Test(
    .timeLimit(.minutes(3)),
    arguments: [
      "node.onChange { tally.count += $0 }",
      "withGraphTrackingGroup { tally.count += node.wrappedValue }",
      "withGraphTrackingMap({ node.wrappedValue }) { tally.count += $0 }",
      "withGraphTrackingMap({ tally.count }, filter: PassthroughFilter()) { _ in }",
    ])
  func aHandlerOutsideAnyActorCannotCaptureANonSendableValue(registration: String) throws {
    let result = try typeCheck(
      Self.declarations + """
        func tallied(node: Stored<Int>, tally: Tally) -> StateGraphSubscription {
          withGraphTracking {
            \(registration)
          }
        }
        """)
    #expect(result.status != 0)
    #expect(
      result.output.contains("non-Sendable type 'Tally' in a '@Sendable' closure"),
      "\(result.output)")
  }

  /// swift-state-graph's models declare `Sendable`; the macros keep such a class free of
  /// mutable stored properties, which the Swift 6 mode would reject.
  @Test(.timeLimit(.minutes(3)))
  func aSendableClassHoldsGraphProperties() throws {
    let result = try typeCheck(
      Self.declarations + """
        final class Model: Sendable {
          @GraphStored var count: Int = 0
          @GraphStored var title: String
          @GraphStored var note: String?
          @GraphStored(backed: .userDefaults(key: "volume")) var volume: Double = 0.5
          @GraphComputed var doubled: Int
          init(title: String) {
            self.title = title
            self.count = 1
            self.$doubled = .init { [$count] _ in $count.wrappedValue * 2 }
          }
        }
        func check() {
          let model = Model(title: "a")
          share { model.count += model.doubled }
        }
        """)
    #expect(result.status == 0, "\(result.output)")
  }

  @Test(.timeLimit(.minutes(3)))
  func aSendableClassCannotHoldANonSendableGraphProperty() throws {
    let result = try typeCheck(
      Self.declarations + """
        final class Model: Sendable {
          @GraphStored var tally: Tally = Tally()
        }
        """)
    #expect(result.status != 0)
    #expect(
      result.output.contains("stored property '_tally' of 'Sendable'-conforming class 'Model' contains non-Sendable type 'Tally'"),
      "\(result.output)")
  }

  /// Runs `swiftc -typecheck -swift-version 6` on `program` against the built modules,
  /// found next to the test bundle.
  private func typeCheck(_ program: String) throws -> (status: Int32, output: String) {
    let packageRoot = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    var products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    if !FileManager.default.fileExists(atPath: products.appendingPathComponent("Modules").path) {
      products = URL(fileURLWithPath: Bundle.main.bundlePath).deletingLastPathComponent()
    }
    let modules = products.appendingPathComponent("Modules")
    try #require(
      FileManager.default.fileExists(
        atPath: modules.appendingPathComponent("StateGraph.swiftmodule").path),
      "the modules are built with the package: \(modules.path)")
    let scratch = FileManager.default.temporaryDirectory
      .appendingPathComponent("sendable-checking-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let main = scratch.appendingPathComponent("main.swift")
    try program.write(to: main, atomically: true, encoding: .utf8)

    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
      "swiftc", "-typecheck", "-swift-version", "6", "-module-name", "Check",
      "-I", modules.path,
      "-Xcc", "-fmodule-map-file="
        + products.appendingPathComponent("StateGraphCore.build/module.modulemap").path,
      "-Xcc", "-fmodule-map-file="
        + packageRoot.appendingPathComponent("CSources/CGLib/module.modulemap").path,
      "-Xcc", "-I" + packageRoot.appendingPathComponent("CSources/StateGraphCore/include").path,
      "-Xcc", "-I/usr/include/glib-2.0", "-Xcc", "-I/usr/lib/x86_64-linux-gnu/glib-2.0/include",
      "-load-plugin-executable",
      products.appendingPathComponent("StateGraphMacros-tool").path + "#StateGraphMacros",
      main.path,
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
