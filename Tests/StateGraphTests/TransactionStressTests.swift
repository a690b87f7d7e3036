import Foundation
import Testing

@testable import StateGraph

/// Transactions, readers and plain writers on several threads at once. `make test` runs
/// the suites whose name contains "Stress" under the thread sanitizer.
@Suite("Transaction Stress")
struct TransactionStressTests {
  struct Failure: Error {}

  /// Transactions set `a` to a value and `b` to its opposite; computations on other
  /// threads always see a total of zero, never one side of a commit without the other.
  /// (The writes do not depend on reads: reads inside a transaction see the latest commit,
  /// read committed, so two transactions that each read `a` and `b` at different moments
  /// could commit an unbalanced pair.)
  @Test(.timeLimit(.minutes(1)))
  func computationsNeverSeeHalfACommit() async {
    let a = Stored(wrappedValue: 0)
    let b = Stored(wrappedValue: 0)
    // The reader's run is short and the writer pauses between its writes: were the writes
    // visible one by one, a run would often fit in the pause and keep a mixed total.
    let total = Computed { _ in
      let first = a.wrappedValue
      spin(50)
      return first + b.wrappedValue
    }
    let mixed = Counter()
    let rounds = 400
    let writing = Locked(2)
    await withTaskGroup(of: Void.self) { group in
      for worker in 1...2 {
        group.addTask {
          defer { writing.withLock { $0 -= 1 } }
          for round in 1...rounds {
            withGraphTransaction {
              a.wrappedValue = worker * 100_000 + round
              spin(2_000)
              b.wrappedValue = -(worker * 100_000 + round)
              if a.wrappedValue + b.wrappedValue != 0 { mixed.tick() }
            }
          }
        }
      }
      for _ in 0..<2 {
        group.addTask {  // reads for as long as the writers write
          repeat {
            if total.wrappedValue != 0 { mixed.tick() }
          } while writing.withLock({ $0 }) > 0
        }
      }
    }
    #expect(mixed.value == 0)
    #expect(total.wrappedValue == 0)
    #expect(a.wrappedValue > 0)
  }

  /// Discarded transactions are never seen: no thread ever reads their value.
  @Test(.timeLimit(.minutes(1)))
  func discardedTransactionsAreNeverSeen() async {
    let a = Stored(wrappedValue: 0)
    let doubled = Computed { _ in a.wrappedValue * 2 }
    let seenDiscarded = Counter()
    let seen = Recorder<Int>()
    let subscription = withGraphTracking { a.onChange { if $0 < 0 { seen.append($0) } } }
    let writing = Locked(true)
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        defer { writing.withLock { $0 = false } }
        for round in 1...300 {
          try? withGraphTransaction {
            a.wrappedValue = -round
            spin(2_000)
            throw Failure()
          }
          withGraphTransaction { a.wrappedValue = round }
        }
      }
      group.addTask {  // reads for as long as the writer writes
        repeat {
          if a.wrappedValue < 0 || doubled.wrappedValue < 0 { seenDiscarded.tick() }
        } while writing.withLock({ $0 })
      }
    }
    #expect(seenDiscarded.value == 0)
    #expect(seen.values == [])
    #expect(a.wrappedValue == 300)
    _ = subscription
  }

  /// Plain writers and transactions on the same nodes: nothing waits for anything, and the
  /// end state is that of a serial order — each transaction writes both nodes, each plain
  /// writer one, so the last commit leaves them equal unless a plain write came after it.
  @Test(.timeLimit(.minutes(1)))
  func plainWritersAndTransactionsEndInASerialOutcome() async {
    let a = Stored(wrappedValue: 0)
    let b = Stored(wrappedValue: 0)
    let finished = Counter()
    await withTaskGroup(of: Void.self) { group in
      for worker in 0..<3 {
        group.addTask {
          for round in 0..<300 {
            let value = worker * 1000 + round
            withGraphTransaction {
              a.wrappedValue = value
              b.wrappedValue = value
            }
          }
          finished.tick()
        }
      }
      group.addTask {
        for round in 0..<300 { a.wrappedValue = -round }
        finished.tick()
      }
    }
    #expect(finished.value == 4)
    // Commits of overlapping nodes are serial: the last one overall is some worker's last
    // round, and it set both nodes; `a` differs only if the plain writer's last write
    // came after it.
    #expect(b.wrappedValue % 1000 == 299)
    #expect(a.wrappedValue == b.wrappedValue || a.wrappedValue == -299)
  }
}

/// Busy work that the optimizer keeps: widens the windows the tests look into.
@inline(never)
func spin(_ turns: Int) {
  var value = 0
  for turn in 0..<turns { value = value &* 31 &+ turn }
  spinSink.withLock { $0 = value }
}

let spinSink = Locked(0)
