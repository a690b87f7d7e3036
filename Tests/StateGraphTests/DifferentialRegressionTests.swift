import Testing

@testable import StateGraph

/// Bugs the differential test and the fuzzer found, each reduced to the
/// smallest program that showed it. All three lived in rollback: a throwing
/// `withGraphBatch` restores the values and versions of the nodes it changed.
@Suite("Differential regressions")
struct DifferentialRegressionTests {
  struct Rollback: Error {}

  /// A computed node left stale by a write before the batch, then read
  /// inside it: the batch logged its stale value as "the value before".
  /// The rollback put that value back and the node, re-checked against the
  /// sources its in-batch run had read (unchanged), passed as up to date:
  /// it read 1 forever instead of 2. (Core fix: a rolled-back computed node
  /// runs again at its next read.)
  @Test func aComputedStaleBeforeAThrowingBatchIsRightAfterIt() {
    let source = Stored(wrappedValue: 1)
    let runs = Counter()
    let copy = Computed { _ in runs.run(source.wrappedValue) }
    #expect(copy.wrappedValue == 1)
    source.wrappedValue = 2  // copy is stale now, not read
    #expect(throws: Rollback.self) {
      try withGraphBatch {
        #expect(copy.wrappedValue == 2)
        throw Rollback()
      }
    }
    #expect(copy.wrappedValue == 2)
    #expect(runs.value == 3)  // the run after the rollback found 2 again
  }

  /// A node with a placeholder, first computed inside a throwing batch: the
  /// placeholder was logged as the value to restore, and the node read 0
  /// after the batch although nothing it reads had changed.
  @Test func aPlaceholderIsNotWhatARollbackLeaves() {
    let source = Stored(wrappedValue: 5)
    let withPlaceholder = Computed(wrappedValue: 0) { _ in source.wrappedValue }
    #expect(throws: Rollback.self) {
      try withGraphBatch {
        #expect(withPlaceholder.wrappedValue == 5)
        throw Rollback()
      }
    }
    #expect(withPlaceholder.wrappedValue == 5)
  }

  /// Versions handed out again after a rollback: `middle` changed inside
  /// the batch (version v+1, which `top` saw), the rollback gave it back v,
  /// and its next change was numbered v+1 again. `top` compared versions,
  /// found the one it had seen, and kept a value computed from the batch's
  /// rolled-back state: 0 instead of 9. (Core fix: a change takes a version
  /// the node never had.)
  @Test func aVersionIsNeverReusedAfterARollback() {
    let source = Stored(wrappedValue: 1)
    let middle = Computed { _ in source.wrappedValue }
    let top = Computed { _ in middle.wrappedValue == 3 ? 9 : 0 }
    #expect(top.wrappedValue == 0)
    #expect(throws: Rollback.self) {
      try withGraphBatch {
        source.wrappedValue = 2
        #expect(top.wrappedValue == 0)  // middle is 2 now: top ran, unchanged
        throw Rollback()
      }
    }
    source.wrappedValue = 3
    #expect(middle.wrappedValue == 3)
    #expect(top.wrappedValue == 9)
  }

  /// And observers: the rollback of a computed node's change notifies
  /// nobody when the node ends where it began, even though it runs again.
  @Test func aRolledBackComputedNotifiesNobody() {
    let source = Stored(wrappedValue: 1)
    let doubled = Computed { _ in source.wrappedValue * 2 }
    let received = Recorder<Int>()
    let subscription = withGraphTracking {
      doubled.onChange(filter: PassthroughFilter()) { received.append($0) }
    }
    #expect(throws: Rollback.self) {
      try withGraphBatch {
        source.wrappedValue = 5
        #expect(doubled.wrappedValue == 10)
        throw Rollback()
      }
    }
    #expect(received.values == [2])
    source.wrappedValue = 4
    #expect(received.values == [2, 8])
    subscription.cancel()
  }
}

extension DifferentialRegressionTests {
  /// A computed node that changed inside a throwing batch and was released
  /// inside it: the batch's log held its box but not its C node, which was
  /// destroyed at once, and malloc gave its memory to the next node created.
  /// The rollback then called sg_rollback with the dead handle — on that new
  /// node — and gave it the dropped node's old version, one it had had with
  /// another value: a reader that had seen that version passed as up to date
  /// and read 10 instead of 0. Whether malloc reuses the memory depends on
  /// the allocator, so the test checks the cause too: no node created inside
  /// the batch may get the dropped node's memory. (Fix: the log holds the C
  /// node of every node it records until the batch ends, `sg_node_hold`; the
  /// rollback of a node destroyed meanwhile finds it stale.)
  @Test func aComputedReleasedInsideAThrowingBatch() {
    let source = Stored(wrappedValue: 1)
    var dropped: Computed<Int>? = Computed { _ in source.wrappedValue * 10 }
    // `reader` never changes, so the log never holds it (or, through its
    // closure, `dropped`); its watcher fires once here and leaves it unarmed,
    // so no pending-effect queue holds it either.
    var reader: Computed<Int>? = Computed { [dropped] _ in dropped!.wrappedValue > 0 ? 1 : 0 }
    #expect(reader?.wrappedValue == 1)
    source.wrappedValue = 2
    var victim: Stored<Int>?
    var doubled: Computed<Int>?
    #expect(throws: Rollback.self) {
      try withGraphBatch {
        source.wrappedValue = 3
        _ = reader!.wrappedValue  // `dropped` runs and changes (logged): version 1 -> 2
        let droppedNode = dropped!.node
        reader = nil
        dropped = nil
        var spare: [Stored<Int>] = []
        for _ in 0..<10_000 where victim == nil {  // a node that reuses the memory, if any
          let node = Stored(wrappedValue: 0)
          if node.node == droppedNode { victim = node } else { spare.append(node) }
        }
        #expect(victim == nil)  // the log holds the memory
        guard let victim else { throw Rollback() }
        let reading = Computed { _ in victim.wrappedValue * 2 }
        doubled = reading
        victim.wrappedValue = 5  // version 1, value 5
        #expect(reading.wrappedValue == 10)  // seen: version 1
        victim.wrappedValue = 6  // version 2
        throw Rollback()
      }
    }
    if let victim, let doubled {
      #expect(victim.wrappedValue == 0)
      #expect(doubled.wrappedValue == 0)
    }
  }
}
