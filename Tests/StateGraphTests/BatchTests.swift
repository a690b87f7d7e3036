import Testing

@testable import StateGraph

@Suite("withGraphBatch")
struct BatchTests {
  struct Failure: Error {}
  enum Rejected: Error, Equatable { case tooLarge(Int) }

  /// A batch's error keeps its type: no cast, no `any Error`.
  @Test func aBatchRethrowsItsTypedError() {
    let a = Stored(wrappedValue: 1)
    do {
      try withGraphBatch { () throws(Rejected) in
        a.wrappedValue = 100
        if a.wrappedValue > 10 { throw .tooLarge(a.wrappedValue) }
      }
      Issue.record("no error")
    } catch {
      #expect(error == .tooLarge(100))
    }
    #expect(a.wrappedValue == 1)
  }

  @Test func batchReturnsItsResultAndAppliesWrites() {
    let a = Stored(wrappedValue: 1)
    let b = Stored(wrappedValue: 2)
    let sum = Computed { _ in a.wrappedValue + b.wrappedValue }
    let result = withGraphBatch {
      a.wrappedValue = 10
      b.wrappedValue = 20
      return sum.wrappedValue  // reads inside see the batch's writes
    }
    #expect(result == 30)
    #expect(sum.wrappedValue == 30)
  }

  @Test func aThrowingBatchRollsBackEveryWrite() {
    let a = Stored(wrappedValue: 1)
    let b = Stored(wrappedValue: "x")
    let runs = Counter()
    let both = Computed { _ in runs.run("\(a.wrappedValue)\(b.wrappedValue)") }
    #expect(both.wrappedValue == "1x")
    #expect(throws: Failure.self) {
      try withGraphBatch {
        a.wrappedValue = 2
        b.wrappedValue = "y"
        #expect(both.wrappedValue == "2y")
        a.wrappedValue = 3
        throw Failure()
      }
    }
    #expect(a.wrappedValue == 1)
    #expect(b.wrappedValue == "x")
    #expect(both.wrappedValue == "1x")
  }

  @Test func anInnerBatchThatThrowsUndoesOnlyItsOwnWrites() {
    let a = Stored(wrappedValue: 0)
    let b = Stored(wrappedValue: 0)
    withGraphBatch {
      a.wrappedValue = 1
      try? withGraphBatch {
        a.wrappedValue = 2
        b.wrappedValue = 2
        throw Failure()
      }
      #expect(a.wrappedValue == 1)
      #expect(b.wrappedValue == 0)
      b.wrappedValue = 5
    }
    #expect(a.wrappedValue == 1)
    #expect(b.wrappedValue == 5)
  }

  /// Past a few nodes the undo log indexes them in a set: still one entry
  /// (the oldest value) per node, through nested batches too.
  @Test func manyNodesWrittenTwiceRollBackToTheirFirstValues() {
    let nodes = (0..<20).map { Stored(wrappedValue: $0) }
    let sum = Computed { _ in nodes.reduce(0) { $0 + $1.wrappedValue } }
    #expect(sum.wrappedValue == 190)
    #expect(throws: Failure.self) {
      try withGraphBatch {
        for node in nodes { node.wrappedValue += 100 }
        withGraphBatch {
          for node in nodes.reversed() { node.wrappedValue += 1000 }
        }
        #expect(sum.wrappedValue == 190 + 20 * 1100)
        throw Failure()
      }
    }
    #expect(nodes.map(\.wrappedValue) == Array(0..<20))
    #expect(sum.wrappedValue == 190)
  }
}
