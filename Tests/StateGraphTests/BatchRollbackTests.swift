import Foundation
import Testing

@testable import StateGraph

/// A rollback undoes only what its own batch wrote: a node another thread wrote since
/// keeps that value, and a node's value and version never disagree afterwards.
@Suite("withGraphBatch rollback and other threads")
struct BatchRollbackTests {
  struct Failure: Error {}

  @Test func aRollbackKeepsAnotherThreadsLaterWrite() {
    let s = Stored(wrappedValue: 0)
    let d = Computed { _ in s.wrappedValue * 10 }
    let seen = Recorder<Int>()
    let subscription = withGraphTracking { s.onChange { seen.append($0) } }
    #expect(d.wrappedValue == 0)
    #expect(throws: Failure.self) {
      try withGraphBatch {
        s.wrappedValue = 1
        #expect(onAnotherThread { s.wrappedValue = 2 })
        throw Failure()
      }
    }
    #expect(s.wrappedValue == 2)
    #expect(d.wrappedValue == 20)
    #expect(seen.values == [0, 2])
    _ = subscription
  }

  /// Another thread wrote between two of the batch's writes: the rollback goes back to
  /// that thread's value, not to the value from before the batch.
  @Test func aRollbackStopsAtAWriteMadeBetweenTheBatchsWrites() {
    let s = Stored(wrappedValue: 0)
    let d = Computed { _ in s.wrappedValue * 10 }
    #expect(d.wrappedValue == 0)
    #expect(throws: Failure.self) {
      try withGraphBatch {
        s.wrappedValue = 1
        #expect(onAnotherThread { s.wrappedValue = 2 })
        s.wrappedValue = 3
        #expect(d.wrappedValue == 30)
        throw Failure()
      }
    }
    #expect(s.wrappedValue == 2)
    #expect(d.wrappedValue == 20)
  }

  /// The same through nested batches: the inner one commits into the outer one, whose
  /// rollback still stops at the other thread's write.
  @Test func nestedBatchesKeepTheForeignRestorePoint() {
    let s = Stored(wrappedValue: 0)
    let t = Stored(wrappedValue: 0)
    let sum = Computed { _ in s.wrappedValue + t.wrappedValue }
    #expect(sum.wrappedValue == 0)
    #expect(throws: Failure.self) {
      try withGraphBatch {
        s.wrappedValue = 1
        t.wrappedValue = 1
        withGraphBatch {
          #expect(onAnotherThread { s.wrappedValue = 5 })
          s.wrappedValue = 6
          t.wrappedValue = 2
        }
        try? withGraphBatch {
          t.wrappedValue = 3
          throw Failure()
        }
        #expect(t.wrappedValue == 2)
        #expect(sum.wrappedValue == 8)
        throw Failure()
      }
    }
    #expect(s.wrappedValue == 5)
    #expect(t.wrappedValue == 0)
    #expect(sum.wrappedValue == 5)
  }

  /// A computed node recomputed by another thread after the batch's run keeps that value.
  @Test func aComputedRecomputedElsewhereIsNotPutBack() {
    let s = Stored(wrappedValue: 0)
    let other = Stored(wrappedValue: 0)
    let d = Computed { _ in s.wrappedValue * 10 + other.wrappedValue }
    let e = Computed { _ in d.wrappedValue + 1 }
    #expect(e.wrappedValue == 1)
    #expect(throws: Failure.self) {
      try withGraphBatch {
        s.wrappedValue = 1
        #expect(e.wrappedValue == 11)
        #expect(onAnotherThread {
          other.wrappedValue = 7
          _ = e.wrappedValue  // recomputes d from the batch's s = 1 and other = 7
        })
        throw Failure()
      }
    }
    #expect(s.wrappedValue == 0)
    #expect(other.wrappedValue == 7)
    #expect(d.wrappedValue == 7)
    #expect(e.wrappedValue == 8)
  }

  /// A backing whose save pauses holds the rollback between the value's restore and the
  /// rest of its work; a write of another thread lands in that window. Before, the version
  /// was rolled back after that write, under its value, and `d` read 0 for ever.
  @Test func aWriteDuringTheBackingsUndoIsKeptAndSeen() {
    let backing = PausingBacking()
    let s = Stored(wrappedValue: 0, backed: .custom(backing))
    let d = Computed { _ in s.wrappedValue * 10 }
    #expect(d.wrappedValue == 0)
    let rolledBack = Recorder<Bool>()
    let batch = startThread {
      do {
        try withGraphBatch {
          s.wrappedValue = 1
          backing.gate.arm()  // the rollback's save of the old value pauses
          throw Failure()
        }
      } catch {
        rolledBack.append(true)
      }
    }
    #expect(backing.gate.paused.wait(seconds: 20))
    s.wrappedValue = 2
    backing.gate.resume.signal()
    #expect(batch.wait(seconds: 20))
    #expect(rolledBack.values == [true])
    #expect(s.wrappedValue == 2)
    #expect(d.wrappedValue == 20)
  }
}
