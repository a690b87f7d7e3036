import Foundation
import StateGraph
import Testing

// A rollback restores the nodes that existed when its batch or transaction began; a plain
// node made inside keeps the values it was given there, so the object that made it is
// never left half initialised.

private final class Model {
  @GraphStored var count: Int = 0
  init(count: Int) { self.count = count }
}

@Suite("Nodes made inside a batch or transaction")
struct MadeInsideUndoTests {
  struct Refusal: Error {}

  /// swift-state-graph's case: a model a computation makes, read inside a transaction
  /// that throws, keeps the value its `init` gave it; the source the transaction wrote
  /// is restored, and later transactions roll the model's writes back as usual.
  @Test func aModelMadeInsideAThrowingTransactionKeepsItsInitialValues() throws {
    let source = Stored(wrappedValue: 1)
    let makes = Computed { _ in Model(count: source.wrappedValue) }
    nonisolated(unsafe) var kept: Model?
    #expect(throws: Refusal.self) {
      try withGraphTransaction {
        source.wrappedValue = 7
        kept = makes.wrappedValue
        #expect(kept?.count == 7)
        throw Refusal()
      }
    }
    let model = try #require(kept)
    #expect(source.wrappedValue == 1)
    #expect(model.count == 7)

    #expect(throws: Refusal.self) {
      try withGraphTransaction {
        model.count = 8
        #expect(model.count == 8)
        throw Refusal()
      }
    }
    #expect(model.count == 7)
    withGraphTransaction { model.count = 9 }
    #expect(model.count == 9)
    #expect(makes.wrappedValue.count == 1)
  }

  /// Inside a batch: the node made there keeps every value written to it, also by an inner
  /// batch that throws; a node made before is restored.
  @Test func aNodeMadeInsideAThrowingBatchKeepsItsValues() {
    let before = Stored(wrappedValue: 0)
    nonisolated(unsafe) var made: Stored<Int>?
    #expect(throws: Refusal.self) {
      try withGraphBatch {
        before.wrappedValue = 1
        let node = Stored(wrappedValue: 10)
        made = node
        node.wrappedValue = 11
        let inner = Result {
          try withGraphBatch {
            node.wrappedValue = 12
            before.wrappedValue = 2
            throw Refusal()
          }
        }
        if case .success = inner { Issue.record("the inner batch did not throw") }
        #expect(before.wrappedValue == 1)
        #expect(node.wrappedValue == 12)
        throw Refusal()
      }
    }
    #expect(before.wrappedValue == 0)
    #expect(made?.wrappedValue == 12)
  }

  /// A node made inside is written at once, so what depends on it sees the write inside
  /// the transaction too, and once it ends the node is a node like any other: a later
  /// transaction stages its writes and a rollback drops them.
  @Test func aNodeMadeInsideIsWrittenAtOnceAndOrdinaryAfterwards() {
    nonisolated(unsafe) var made: Stored<Int>?
    nonisolated(unsafe) var doubled: Computed<Int>?
    withGraphTransaction {
      let node = Stored(wrappedValue: 1)
      let twice = Computed { _ in node.wrappedValue * 2 }
      node.wrappedValue = 2
      #expect(twice.wrappedValue == 4)
      made = node
      doubled = twice
    }
    let node = made!
    #expect(doubled?.wrappedValue == 4)
    #expect(throws: Refusal.self) {
      try withGraphTransaction {
        node.wrappedValue = 3
        throw Refusal()
      }
    }
    #expect(node.wrappedValue == 2)
    #expect(doubled?.wrappedValue == 4)
  }

  /// A backed node made inside is not exempt: its key is shared with nodes made before, so
  /// a transaction that throws saves nothing to it.
  @Test func aBackedNodeMadeInsideIsStillRolledBack() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    #expect(throws: Refusal.self) {
      try withGraphTransaction {
        let node = Stored(wrappedValue: 0, backed: suite.backing("count"))
        node.wrappedValue = 5
        #expect(node.wrappedValue == 5)
        throw Refusal()
      }
    }
    #expect(suite.stored("count") == nil)
    #expect(Stored(wrappedValue: 0, backed: suite.backing("count")).wrappedValue == 0)
  }
}
