import Foundation
import Testing

@testable import StateGraph

/// `Stored.onDidSet`, as swift-state-graph 0.27 defines it: after every assignment, with the
/// old and the new value.
@Suite("Stored.onDidSet")
struct StoredDidSetTests {
  @Test func runsAfterEveryAssignmentWithOldAndNewValue() {
    let count = Stored(wrappedValue: 0)
    let seen = Recorder<String>()
    count.onDidSet { oldValue, newValue in seen.append("\(oldValue)->\(newValue)") }
    count.wrappedValue = 1
    count.wrappedValue = 1  // an equal value is still an assignment
    count.wrappedValue = 3
    #expect(seen.values == ["0->1", "1->1", "1->3"])
  }

  @Test func runsAfterTheNodeHoldsTheValueAndObserversRan() {
    let count = Stored(wrappedValue: 0)
    let doubled = Computed { _ in count.wrappedValue * 2 }
    let events = Recorder<String>()
    let subscription = withGraphTracking {
      count.onChange { events.append("onChange \($0)") }
    }
    count.onDidSet { _, newValue in
      events.append("didSet \(newValue) node \(count.wrappedValue) doubled \(doubled.wrappedValue)")
    }
    count.wrappedValue = 5
    #expect(events.values == ["onChange 0", "onChange 5", "didSet 5 node 5 doubled 10"])
    _ = subscription
  }

  @Test func runsForEachAssignmentInsideABatch() {
    let count = Stored(wrappedValue: 0)
    let seen = Recorder<String>()
    count.onDidSet { oldValue, newValue in seen.append("\(oldValue)->\(newValue)") }
    withGraphBatch {
      count.wrappedValue = 1
      count.wrappedValue = 1
      count.wrappedValue = 3
    }
    #expect(seen.values == ["0->1", "1->1", "1->3"])
  }

  @Test func aSecondHandlerReplacesTheFirst() {
    let count = Stored(wrappedValue: 0)
    let first = Counter()
    let second = Recorder<Int>()
    count.onDidSet { _, _ in first.tick() }
    count.wrappedValue = 1
    count.onDidSet { _, newValue in second.append(newValue) }
    count.wrappedValue = 2
    #expect(first.value == 1)
    #expect(second.values == [2])
  }

  @Test func theHandlerMayWriteTheNodeAgain() {
    let count = Stored(wrappedValue: 0)
    let seen = Recorder<String>()
    count.onDidSet { oldValue, newValue in
      seen.append("\(oldValue)->\(newValue)")
      if newValue == 1 { count.wrappedValue = 2 }  // no lock of the node is held here
    }
    count.wrappedValue = 1
    #expect(count.wrappedValue == 2)
    #expect(seen.values == ["0->1", "1->2"])
  }

  @Test func aRolledBackBatchLeavesTheValueButTheHandlerHasRun() {
    struct Abort: Error {}
    let count = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    count.onDidSet { _, newValue in seen.append(newValue) }
    #expect(throws: Abort.self) {
      try withGraphBatch {
        count.wrappedValue = 7
        throw Abort()
      }
    }
    #expect(count.wrappedValue == 0)
    #expect(seen.values == [7])
  }
}
