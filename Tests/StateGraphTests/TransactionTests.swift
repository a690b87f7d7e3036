import Foundation
import Observation
import Testing

@testable import StateGraph

/// `withGraphTransaction`: staged writes, seen by the transaction's thread only, applied
/// together when the outermost body returns, dropped when it throws.
@Suite("withGraphTransaction")
struct TransactionTests {
  struct Failure: Error {}
  enum CheckoutError: Error, Equatable { case empty }

  /// A transaction pauses between its two writes: another thread reads the committed
  /// values, of the stored nodes and of a computed over both, until the commit.
  @Test func anotherThreadReadsCommittedValuesWhileATransactionIsOpen() {
    let a = Stored(wrappedValue: 0)
    let b = Stored(wrappedValue: 0)
    let pair = Computed { _ in [a.wrappedValue, b.wrappedValue] }
    #expect(pair.wrappedValue == [0, 0])
    withGraphTransaction {
      a.wrappedValue = 1
      #expect(a.wrappedValue == 1)
      let seen = Locked<(Int, [Int])>((-1, []))
      #expect(onAnotherThread { seen.withLock { $0 = (a.wrappedValue, pair.wrappedValue) } })
      #expect(seen.withLock { $0.0 } == 0)
      #expect(seen.withLock { $0.1 } == [0, 0])
      b.wrappedValue = -1
      #expect(pair.wrappedValue == [1, -1])
    }
    let after = Locked<[Int]>([])
    #expect(onAnotherThread { after.withLock { $0 = pair.wrappedValue } })
    #expect(after.withLock { $0 } == [1, -1])
  }

  /// Stored and computed reads inside see the staged values; a computed evaluated against
  /// them runs once per write and leaves the shared cache as it was.
  @Test func readsInsideSeeStagedValuesAndLeaveTheSharedCacheAlone() {
    let a = Stored(wrappedValue: 1)
    let runs = Counter()
    let doubled = Computed { _ in runs.run(a.wrappedValue * 2) }
    let plusOne = Computed { _ in doubled.wrappedValue + 1 }
    #expect(plusOne.wrappedValue == 3)
    #expect(runs.value == 1)
    #expect(throws: Failure.self) {
      try withGraphTransaction {
        a.wrappedValue = 5
        #expect(doubled.wrappedValue == 10)
        #expect(plusOne.wrappedValue == 11)  // the staged evaluation of `doubled` is reused
        #expect(runs.value == 2)
        a.wrappedValue = 6
        #expect(plusOne.wrappedValue == 13)
        #expect(runs.value == 3)
        throw Failure()
      }
    }
    #expect(a.wrappedValue == 1)
    #expect(plusOne.wrappedValue == 3)
    #expect(runs.value == 3)  // still cached from before: nothing was applied
  }

  /// A computed first read inside a transaction, against staged values, records no edge:
  /// the graph holds nothing of it afterwards.
  @Test func aComputedReadInsideLeavesNoEdge() {
    let a = Stored(wrappedValue: 1)
    let doubled = Computed { _ in a.wrappedValue * 2 }
    withGraphTransaction {
      a.wrappedValue = 2
      #expect(doubled.wrappedValue == 4)
      #expect(!a.hasGraphDependents)
    }
    #expect(!a.hasGraphDependents)
    #expect(doubled.wrappedValue == 4)
    #expect(a.hasGraphDependents)
  }

  @Test func aDiscardedTransactionNotifiesNobody() {
    let a = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking { a.onChange { seen.append($0) } }
    let fired = Counter()
    withObservationTracking { _ = a.wrappedValue } onChange: { fired.tick() }
    #expect(throws: Failure.self) {
      try withGraphTransaction {
        a.wrappedValue = 1
        a.wrappedValue = 2
        throw Failure()
      }
    }
    #expect(a.wrappedValue == 0)
    #expect(seen.values == [0])
    #expect(fired.value == 0)
    _ = subscription
  }

  /// Observers run once after the commit, with the final values.
  @Test func observersRunOnceAfterTheCommit() {
    let a = Stored(wrappedValue: 0)
    let b = Stored(wrappedValue: 0)
    let sum = Computed { _ in a.wrappedValue + b.wrappedValue }
    let seen = Recorder<Int>()
    let subscription = withGraphTracking { sum.onChange { seen.append($0) } }
    let fired = Counter()
    withObservationTracking { _ = a.wrappedValue } onChange: { fired.tick() }
    withGraphTransaction {
      a.wrappedValue = 1
      b.wrappedValue = 10
      a.wrappedValue = 2
      #expect(seen.values == [0])
      #expect(fired.value == 0)
    }
    #expect(seen.values == [0, 12])
    #expect(fired.value == 1)
    _ = subscription
  }

  @Test func anInnerTransactionThatThrowsDropsOnlyItsOwnWrites() {
    let a = Stored(wrappedValue: 0)
    let b = Stored(wrappedValue: 0)
    let c = Stored(wrappedValue: 0)
    let sum = Computed { _ in a.wrappedValue + b.wrappedValue + c.wrappedValue }
    withGraphTransaction {
      a.wrappedValue = 1
      do {
        try withGraphTransaction {
          a.wrappedValue = 2
          b.wrappedValue = 2
          #expect(sum.wrappedValue == 4)
          throw Failure()
        }
      } catch {}
      #expect(a.wrappedValue == 1)
      #expect(b.wrappedValue == 0)
      #expect(sum.wrappedValue == 1)
      withGraphTransaction { c.wrappedValue = 3 }  // an inner one that returns joins
      #expect(sum.wrappedValue == 4)
    }
    #expect([a.wrappedValue, b.wrappedValue, c.wrappedValue] as [Int] == [1, 0, 3])
    #expect(sum.wrappedValue == 4)
  }

  /// A batch inside a transaction is staged like a nested transaction.
  @Test func aBatchInsideATransactionIsStaged() {
    let a = Stored(wrappedValue: 0)
    withGraphTransaction {
      withGraphBatch { a.wrappedValue = 1 }
      let elsewhere = Locked(-1)
      #expect(onAnotherThread { elsewhere.withLock { $0 = a.wrappedValue } })
      #expect(elsewhere.withLock { $0 } == 0)
      try? withGraphBatch {
        a.wrappedValue = 2
        throw Failure()
      }
      #expect(a.wrappedValue == 1)
    }
    #expect(a.wrappedValue == 1)
  }

  /// A transaction inside a batch commits into it: the batch's rollback undoes it.
  @Test func aTransactionInsideABatchRollsBackWithIt() {
    let a = Stored(wrappedValue: 0)
    #expect(throws: Failure.self) {
      try withGraphBatch {
        withGraphTransaction { a.wrappedValue = 1 }
        #expect(a.wrappedValue == 1)
        throw Failure()
      }
    }
    #expect(a.wrappedValue == 0)
  }

  @Test func typedThrowsKeepTheErrorType() {
    let items = Stored(wrappedValue: ["apple"])
    do {
      try withGraphTransaction { () throws(CheckoutError) in
        items.wrappedValue = []
        if items.wrappedValue.isEmpty { throw .empty }
      }
      Issue.record("no error")
    } catch {
      #expect(error == .empty)  // `error` is a CheckoutError: no cast
    }
    #expect(items.wrappedValue == ["apple"])
    let count = withGraphBatch { () throws(Never) -> Int in items.wrappedValue.count }
    #expect(count == 1)
  }

  /// `onDidSet` runs as the body assigns; its reads see the staged state, and what it
  /// writes is staged too.
  @Test func onDidSetRunsAtTheAssignmentAndItsWritesAreStaged() {
    let a = Stored(wrappedValue: 0)
    let log = Stored(wrappedValue: [String]())
    let calls = Recorder<String>()
    a.onDidSet { old, new in
      calls.append("\(old)->\(new) sees \(a.wrappedValue)")
      log.wrappedValue.append("\(new)")
    }
    withGraphTransaction {
      a.wrappedValue = 1
      a.wrappedValue = 2
      #expect(calls.values == ["0->1 sees 1", "1->2 sees 2"])
      #expect(log.wrappedValue == ["1", "2"])
      let elsewhere = Locked(["?"])
      #expect(onAnotherThread { elsewhere.withLock { $0 = log.wrappedValue } })
      #expect(elsewhere.withLock { $0 } == [])
    }
    #expect(log.wrappedValue == ["1", "2"])
    #expect(calls.count == 2)  // not again at the commit
  }

  /// Reads inside a transaction register nothing with Observation.
  @Test func readsInsideRegisterNoObservation() {
    let a = Stored(wrappedValue: 0)
    let doubled = Computed { _ in a.wrappedValue * 2 }
    let fired = Counter()
    withObservationTracking {
      withGraphTransaction {
        _ = a.wrappedValue
        _ = doubled.wrappedValue
      }
    } onChange: {
      fired.tick()
    }
    a.wrappedValue = 1
    #expect(doubled.wrappedValue == 2)
    #expect(fired.value == 0)
  }

  /// A backed node is saved at the commit only; a discarded transaction never reaches it.
  @Test func aBackedNodeIsSavedAtTheCommitOnly() {
    let backing = SaveCountingBacking()
    let theme = Stored(wrappedValue: "light", backed: .custom(backing))
    #expect(throws: Failure.self) {
      try withGraphTransaction {
        theme.wrappedValue = "dark"
        #expect(theme.wrappedValue == "dark")
        throw Failure()
      }
    }
    #expect(backing.saves == [])
    #expect(theme.wrappedValue == "light")
    withGraphTransaction {
      theme.wrappedValue = "dark"
      theme.wrappedValue = "blue"
      #expect(backing.saves == [])
    }
    #expect(backing.saves == [.string("blue")])
    #expect(theme.wrappedValue == "blue")
    let fresh = Stored(wrappedValue: "light", backed: .custom(backing))
    #expect(fresh.wrappedValue == "blue")
  }

  /// A plain write from another thread to a node the transaction staged is applied at
  /// once, without waiting; the commit then writes over it (the commit wins), and the
  /// other thread's write to a node the transaction did not touch stays.
  @Test func aPlainWriterIsNotHeldAndTheCommitWins() {
    let a = Stored(wrappedValue: 0)
    let b = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking { a.onChange { seen.append($0) } }
    withGraphTransaction {
      a.wrappedValue = 1
      #expect(
        onAnotherThread(timeout: .seconds(5)) {
          a.wrappedValue = 5
          b.wrappedValue = 7
        })
      #expect(a.wrappedValue == 1)  // this thread still sees its staged value
    }
    #expect(a.wrappedValue == 1)
    #expect(b.wrappedValue == 7)
    #expect(seen.values == [0, 5, 1])
    _ = subscription
  }

  /// The commit holds every written node's value lock until all are stored and announced:
  /// a computation on another thread that read the old `a` cannot read the new `b` until
  /// then, and the core runs it again; its value never mixes the two moments.
  @Test func aComputationDuringTheCommitNeverKeepsAMixedValue() {
    let a = Stored(wrappedValue: 0)
    let b = Stored(wrappedValue: 0)
    let readA = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let pausing = Locked(true)
    let runs = Counter()
    let pair = Computed { _ in
      let first = a.wrappedValue
      if pausing.withLock({ $0 }) {
        pausing.withLock { $0 = false }
        readA.signal()
        _ = go.wait(seconds: 5)
      }
      return runs.run([first, b.wrappedValue])
    }
    let result = Locked<[Int]>([])
    let reader = startThread { result.withLock { $0 = pair.wrappedValue } }
    #expect(readA.wait(seconds: 5))
    let committed = DispatchSemaphore(value: 0)
    let thread = ThreadState.current  // the hook is this thread's: other tests' commits skip it
    thread.pauseInCommitForTesting = {
      // Every lock is held and `a` is applied: the reader, let go now, blocks on `b`.
      go.signal()
      #expect(committed.wait(timeout: .now() + .milliseconds(200)) == .timedOut)
    }
    defer { thread.pauseInCommitForTesting = nil }
    withGraphTransaction {
      a.wrappedValue = 1
      b.wrappedValue = -1
    }
    thread.pauseInCommitForTesting = nil
    #expect(reader.wait(seconds: 5))
    #expect(result.withLock { $0 } == [1, -1])
    #expect(runs.value == 2)  // the mixed run was not kept
  }

  /// A computed read twice by another, against staged state, runs once per write.
  @Test func stagedStateEvaluatesEachComputedOncePerWrite() {
    let a = Stored(wrappedValue: 1)
    let runs = Counter()
    let left = Computed { _ in runs.run(a.wrappedValue) }
    let both = Computed { _ in left.wrappedValue + left.wrappedValue }
    withGraphTransaction {
      a.wrappedValue = 2
      #expect(both.wrappedValue == 4)
      #expect(both.wrappedValue == 4)
      #expect(runs.value == 1)
    }
    #expect(both.wrappedValue == 4)
    #expect(runs.value == 2)
  }
}

/// A backing in memory that records every save, in order.
final class SaveCountingBacking: StorageBacking, @unchecked Sendable {
  private let lock = NSLock()
  private var stored: PropertyListValue?
  private var recorded: [PropertyListValue?] = []

  var saves: [PropertyListValue?] { lock.withLock { recorded } }
  var description: String { "save-counting backing" }

  static func == (lhs: SaveCountingBacking, rhs: SaveCountingBacking) -> Bool { lhs === rhs }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

  func load() throws -> PropertyListValue? { lock.withLock { stored } }
  func save(_ value: PropertyListValue?) throws {
    lock.withLock {
      stored = value
      recorded.append(value)
    }
  }
}

/// Computed nodes that no staged write reaches are read through the core, cache and all;
/// those it reaches are evaluated against the staged values.
@Suite("withGraphTransaction: reading through the core")
struct TransactionCoreReadTests {
  @Test func aComputedNoStagedWriteReachesIsReadThroughTheCore() {
    let a = Stored(wrappedValue: 1)
    let other = Stored(wrappedValue: 10)
    let runs = Counter()
    let unrelated = Computed { _ in runs.run(other.wrappedValue + 1) }
    #expect(unrelated.wrappedValue == 11)
    withGraphTransaction {
      a.wrappedValue = 2
      #expect(unrelated.wrappedValue == 11)
      #expect(unrelated.wrappedValue == 11)
    }
    #expect(runs.value == 1)  // the shared cache served every read
  }

  /// A computed whose last run did not read the staged node, but whose next one does (a
  /// dependency that changed meanwhile): the transaction still sees the staged value, and
  /// the shared cache keeps the committed one.
  @Test func aNewDependencyOnAStagedNodeIsSeen() {
    let useA = Stored(wrappedValue: false)
    let a = Stored(wrappedValue: 1)
    let picked = Computed { _ in useA.wrappedValue ? a.wrappedValue : 0 }
    #expect(picked.wrappedValue == 0)
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let writer = startThread {
      _ = go.wait(seconds: 5)
      useA.wrappedValue = true  // committed while the transaction is open
      ready.signal()
    }
    withGraphTransaction {
      a.wrappedValue = 5
      go.signal()
      #expect(ready.wait(seconds: 5))
      #expect(picked.wrappedValue == 5)
      let elsewhere = Locked(-1)
      #expect(onAnotherThread { elsewhere.withLock { $0 = picked.wrappedValue } })
      #expect(elsewhere.withLock { $0 } == 1)  // the shared cache holds the committed value
    }
    #expect(writer.wait(seconds: 5))
    #expect(picked.wrappedValue == 5)
  }

  /// A run through the core that met a staged node cached the committed value and made an
  /// edge from the staged node: the next read inside still sees the staged value.
  @Test func aComputedThatMetAStagedNodeStaysStagedAtTheNextRead() {
    let useA = Stored(wrappedValue: false)
    let a = Stored(wrappedValue: 1)
    let picked = Computed { _ in useA.wrappedValue ? a.wrappedValue : 0 }
    #expect(picked.wrappedValue == 0)
    useA.wrappedValue = true  // the next run reads `a`, a new dependency
    withGraphTransaction {
      a.wrappedValue = 5
      #expect(picked.wrappedValue == 5)
      #expect(picked.wrappedValue == 5)
    }
    #expect(picked.wrappedValue == 5)
  }

  /// A run through the core whose new dependency is a computed the staged node reaches:
  /// that dependency's cache holds the committed value, so the run is evaluated again.
  @Test func aNewDependencyOnAReachedComputedIsSeen() {
    let useSum = Stored(wrappedValue: false)
    let a = Stored(wrappedValue: 1)
    let sum = Computed { _ in a.wrappedValue + 1 }
    let picked = Computed { _ in useSum.wrappedValue ? sum.wrappedValue : 0 }
    #expect(sum.wrappedValue == 2)
    #expect(picked.wrappedValue == 0)
    useSum.wrappedValue = true
    withGraphTransaction {
      a.wrappedValue = 5
      #expect(picked.wrappedValue == 6)
    }
    #expect(picked.wrappedValue == 6)
  }
}

/// Transactions with macro-made models and from inside observers.
@Suite("withGraphTransaction: models and handlers")
struct TransactionModelTests {
  struct Failure: Error {}

  final class Cart: @unchecked Sendable {
    @GraphStored var items: [String] = []
    @GraphStored var log: [String] = [] {
      didSet { logWrites += 1 }
    }
    @GraphComputed var count: Int
    var logWrites = 0

    init() {
      self.$count = .init { [$items] _ in $items.wrappedValue.count }
    }
  }

  /// `@GraphStored` properties, their `didSet` and `@GraphComputed` properties see the
  /// staged state; Observation hears of the commit once.
  @Test func aModelsPropertiesAreStagedTogether() {
    let cart = Cart()
    let fired = Counter()
    withObservationTracking { _ = cart.count } onChange: { fired.tick() }
    withGraphTransaction {
      cart.items.append("apple")
      cart.items.append("pear")
      cart.log.append("added \(cart.count)")
      #expect(cart.count == 2)
      #expect(cart.logWrites == 1)  // `didSet` ran at the assignment
      let elsewhere = Locked((-1, [String]()))
      #expect(onAnotherThread { elsewhere.withLock { $0 = (cart.count, cart.log) } })
      #expect(elsewhere.withLock { $0.0 } == 0)
      #expect(elsewhere.withLock { $0.1 } == [])
      #expect(fired.value == 0)
    }
    #expect(cart.items == ["apple", "pear"])
    #expect(cart.log == ["added 2"])
    #expect(cart.count == 2)
    #expect(fired.value == 1)
  }

  /// An observer's handler may run a transaction: its writes reach the other observers
  /// once, after it commits.
  @Test func aHandlerMayRunATransaction() {
    let source = Stored(wrappedValue: 0)
    let left = Stored(wrappedValue: 0)
    let right = Stored(wrappedValue: 0)
    let pairs = Recorder<[Int]>()
    let pair = Computed { _ in [left.wrappedValue, right.wrappedValue] }
    let subscription = withGraphTracking {
      source.onChange { value in
        withGraphTransaction {
          left.wrappedValue = value
          right.wrappedValue = -value
        }
      }
      pair.onChange { pairs.append($0) }
    }
    source.wrappedValue = 3
    source.wrappedValue = 4
    #expect(pairs.values == [[0, 0], [3, -3], [4, -4]])
    _ = subscription
  }
}
