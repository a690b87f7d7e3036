import Foundation
import Observation
import StateGraph
import Testing

/// `withBorrowedValue`: a projection of a stored value without a copy of the whole, read
/// as `wrappedValue` is; `deferUntilGraphReadCompletes` for what it wants done after.
@Suite("Stored.withBorrowedValue")
struct StoredBorrowTests {
  enum Rejection: Error { case rejected }

  @Test func aProjectionIsADependencyOfTheComputationThatMakesIt() {
    let names = Stored(wrappedValue: [1: "First", 2: "Other"])
    let runs = Counter()
    let first = Computed { _ in runs.run(names.withBorrowedValue { $0[1] }) }
    #expect(first.wrappedValue == "First")
    #expect(first.wrappedValue == "First")
    #expect(runs.value == 1)
    names.wrappedValue[1] = "Second"
    #expect(first.wrappedValue == "Second")
    #expect(runs.value == 2)
  }

  @Test func insideATransactionItSeesTheStagedValue() {
    let names = Stored(wrappedValue: [1: "Committed"])
    withGraphTransaction {
      names.wrappedValue[1] = "Staged"
      #expect(names.withBorrowedValue { $0[1] } == "Staged")
      #expect(deferUntilGraphReadCompletes {} != nil)  // no read holds a lock here
    }
    #expect(names.withBorrowedValue { $0[1] } == "Staged")
  }

  @Test func observationHearsAProjection() {
    let count = Stored(wrappedValue: 0)
    let heard = Counter()
    withObservationTracking {
      _ = count.withBorrowedValue { $0 }
    } onChange: {
      heard.tick()
    }
    count.wrappedValue = 1
    #expect(heard.value == 1)
  }

  /// A throwing projection lets go of the lock (the next write goes through) and still
  /// runs the work it put off, once.
  @Test func aThrowingProjectionReleasesTheLockAndRunsItsDeferredWork() {
    let count = Stored(wrappedValue: 0)
    let ran = Counter()
    #expect(throws: Rejection.rejected) {
      try count.withBorrowedValue { _ throws(Rejection) -> Int in
        #expect(deferUntilGraphReadCompletes { ran.tick() } == nil)
        throw .rejected
      }
    }
    #expect(ran.value == 1)
    count.wrappedValue = 1
    #expect(count.wrappedValue == 1)
  }

  /// Put-off work runs once the lock is released: it may write the very node it was
  /// projected from (under the lock, that write would wait for itself).
  @Test func deferredWorkRunsAfterTheLockIsReleased() {
    let count = Stored(wrappedValue: 1)
    let finished = startThread {
      let seen = count.withBorrowedValue { value -> Int in
        _ = deferUntilGraphReadCompletes { count.wrappedValue = 5 }
        return value
      }
      #expect(seen == 1)
    }
    #expect(finished.wait(seconds: 10))
    #expect(count.wrappedValue == 5)
  }

  /// Outside a projection nothing is put off: the action comes back, not run, and keeps
  /// what it captured until the caller lets go of it.
  @Test func outsideAReadTheActionComesBackUnrun() {
    final class Probe {
      let onDeinit: () -> Void
      init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
      deinit { onDeinit() }
    }
    let ran = Counter()
    let released = Counter()
    var action = deferUntilGraphReadCompletes({
      let probe = Probe { released.tick() }
      return {
        _ = probe
        ran.tick()
      }
    }())
    #expect(action != nil)
    #expect(ran.value == 0)
    action?()
    #expect(ran.value == 1)
    #expect(released.value == 0)
    action = nil
    #expect(released.value == 1)
  }
}
