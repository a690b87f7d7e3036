import Foundation
import StateGraph
import Testing

// `willSet` / `didSet` on `@GraphStored`, with swift-state-graph's meaning: they run around
// each write through the property, like a plain stored property's observers.

private final class LoggingModel {
  @GraphStored var count: Int = 0 {
    willSet { log.append("will \(count) -> \(newValue)") }
    didSet { log.append("did \(oldValue) -> \(count)") }
  }
  var log: [String] = []
}

private final class NamedModel {
  @GraphStored var count: Int = 10 {
    willSet(next) { log.append("will \(next)") }
    didSet(previous) { log.append("did \(previous)") }
  }
  var log: [String] = []
}

private final class MirrorModel {
  @GraphStored var source: Int = 0 {
    didSet { derived += source - oldValue }
  }
  @GraphStored var derived: Int = 0
}

private final class EarlyReturnModel {
  @GraphStored var count: Int = 0 {
    willSet {
      guard newValue > 100 else { return }  // ends the observer, not the write
      log.append("large")
    }
  }
  var log: [String] = []
}

private struct ValueModel {
  @GraphStored var count: Int {
    didSet { Self.log.append("did \(oldValue)") }
  }
  nonisolated(unsafe) static var log: [String] = []

  init(count: Int) { self.count = count }
}

private final class SendableModel: Sendable {
  @GraphStored var count: Int = 0 {
    didSet { changes.append(count - oldValue) }
  }
  let changes = Recorder<Int>()
}

private final class UserDefaultModel {
  @GraphUserDefault("stategraph.tests.parity.observed") var username: String = "anonymous" {
    willSet { log.append("will \(username) -> \(newValue)") }
    didSet { log.append("did \(oldValue) -> \(username)") }
  }
  var log: [String] = []
}

private final class CountingModel: Sendable {
  @GraphStored var count: Int = 0 {
    didSet { oldValues.append(oldValue) }
  }
  let oldValues = Recorder<Int>()

  init(count: Int) { self.count = count }
}

@Suite("willSet and didSet on @GraphStored")
struct MacroPropertyObserverTests {
  @Test func observersRunAroundEachWriteInOrder() {
    let model = LoggingModel()
    model.count = 4
    model.count = 4
    #expect(model.log == ["will 0 -> 4", "did 0 -> 4", "will 4 -> 4", "did 4 -> 4"])
  }

  @Test func namedParameters() {
    let model = NamedModel()
    model.count = 12
    #expect(model.log == ["will 12", "did 10"])
    #expect(model.count == 12)
  }

  @Test func theInitialValueAndInitDoNotRunThem() {
    let model = LoggingModel()
    #expect(model.log.isEmpty)
    #expect(ValueModel(count: 3).count == 3)
  }

  @Test func aReturnInWillSetDoesNotSkipTheWrite() {
    let model = EarlyReturnModel()
    model.count = 5
    #expect(model.count == 5)
    #expect(model.log.isEmpty)
    model.count = 500
    #expect(model.log == ["large"])
  }

  @Test func writesThroughTheNodeBypassThem() {
    let model = LoggingModel()
    model.$count.wrappedValue = 9
    #expect(model.count == 9)
    #expect(model.log.isEmpty)
  }

  @Test func aDidSetWriteJoinsTheBatchAndRollsBackWithIt() {
    struct Abort: Error {}
    let model = MirrorModel()
    #expect(throws: Abort.self) {
      try withGraphBatch {
        model.source = 2
        model.source = 5
        #expect(model.source == 5)
        #expect(model.derived == 5)
        throw Abort()
      }
    }
    #expect(model.source == 0)
    #expect(model.derived == 0)
  }

  @Test func aTypedThrowInWithGraphTransactionRollsBackDidSetWrites() {
    enum Refusal: Error { case refused }
    let model = MirrorModel()
    var caught: Refusal?
    do {
      try withGraphTransaction { () throws(Refusal) -> Void in
        model.source = 2
        model.source = 5
        #expect(model.derived == 5)
        throw .refused
      }
    } catch {
      caught = error  // typed: `error` is a `Refusal`
    }
    #expect(caught == .refused)
    #expect(model.source == 0)
    #expect(model.derived == 0)
    let doubled = withGraphTransaction { model.source = 4; return model.derived * 2 }
    #expect(doubled == 8)
  }

  @Test func didSetAndOnDidSetSeeTheSameAssignments() {
    let model = LoggingModel()
    let nodeLevel = Recorder<String>()
    model.$count.onDidSet { oldValue, newValue in nodeLevel.append("did \(oldValue) -> \(newValue)") }
    withGraphBatch {
      model.count = 1
      model.count = 1
      model.count = 3
    }
    #expect(nodeLevel.values == ["did 0 -> 1", "did 1 -> 1", "did 1 -> 3"])
    #expect(model.log.filter { $0.hasPrefix("did") } == nodeLevel.values)
  }

  @Test func inAStructTheSetterStaysNonmutating() {
    let model = ValueModel(count: 1)
    ValueModel.log = []
    model.count = 2  // `model` is a `let`
    #expect(ValueModel.log == ["did 1"])
  }

  @Test func inASendableClass() {
    let model = SendableModel()
    model.count = 3
    model.count = 10
    #expect(model.changes.values == [3, 7])
  }

  /// The setter reads the value it replaces as a plain property's `didSet` does, without
  /// tracking it: a computation that makes a model, or assigns an existing model's property,
  /// neither depends on the property nor meets its own write as a cycle.
  @Test func aComputationMayAssignAPropertyWhoseDidSetReadsOldValue() {
    let made = Computed { _ in CountingModel(count: 9).count }
    #expect(made.wrappedValue == 9)

    let runs = Counter()
    let source = Stored(wrappedValue: 2)
    let model = CountingModel(count: 0)
    let copier = Computed { _ in
      runs.tick()
      model.count = source.wrappedValue
      return source.wrappedValue * 10
    }
    #expect(copier.wrappedValue == 20)
    #expect(model.count == 2)
    model.count = 7  // not a source of the copier
    #expect(copier.wrappedValue == 20)
    #expect(runs.value == 1)
    source.wrappedValue = 3
    #expect(copier.wrappedValue == 30)
    #expect(runs.value == 2)
    #expect(model.oldValues.values == [0, 0, 2, 7])  // init's assignment included
  }

  @Test func onAGraphUserDefault() {
    let key = "stategraph.tests.parity.observed"
    UserDefaults.standard.removeObject(forKey: key)
    defer { UserDefaults.standard.removeObject(forKey: key) }
    let model = UserDefaultModel()
    model.username = "blob"
    #expect(model.log == ["will anonymous -> blob", "did anonymous -> blob"])
    #expect(UserDefaults.standard.string(forKey: key) == "blob")
  }
}
