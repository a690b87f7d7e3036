import Testing

@testable import StateGraph

/// Node counts are process-wide and other suites run in parallel, so these
/// tests assert on weak references; the C node count is checked serially.
/// Objects are freed "eventually": a whole-graph snapshot taken by a test
/// running in parallel holds every node for a moment, and the last release
/// (with the closures it frees) then happens on that test's thread.
@Suite("Lifetime", .serialized)
struct LifetimeTests {
  @Test func droppingAComputedFreesItAndItsClosure() async {
    let tracker = LifetimeTracker()
    let source = Stored(wrappedValue: 1)
    do {
      let computed = tracker.track(Computed { _ in source.wrappedValue + 1 })
      #expect(computed.wrappedValue == 2)
    }
    #expect(await eventually { tracker.aliveCount == 0 })
    source.wrappedValue = 2  // a write after the dependent is gone is harmless
    #expect(source.wrappedValue == 2)
  }

  @Test func theGraphDoesNotKeepSourcesAlive() async {
    let tracker = LifetimeTracker()
    var computed: Computed<Int>?
    do {
      let source = tracker.track(Stored(wrappedValue: 41))
      computed = Computed { _ in source.wrappedValue + 1 }
      #expect(computed?.wrappedValue == 42)
    }
    #expect(tracker.aliveCount == 1)  // the closure holds it, not the graph
    computed = nil
    #expect(await eventually { tracker.aliveCount == 0 })
  }

  /// A node made, read and dropped inside a computation: the run already used
  /// its value, so losing it must not make the computation run again.
  @Test func aTemporaryNodeInsideAComputationIsReadOnce() async {
    let tracker = LifetimeTracker()
    let runs = Counter()
    let computed = Computed { _ in
      runs.tick()
      return tracker.track(Stored(wrappedValue: 7)).wrappedValue
    }
    #expect(computed.wrappedValue == 7)
    #expect(computed.wrappedValue == 7)
    #expect(runs.value == 1)
    #expect(await eventually { tracker.aliveCount == 0 })
  }

  /// The batch's log keeps what it needs to put a written node back: a node dropped
  /// inside the batch that wrote it lives until the batch ends, is rolled back safely, and
  /// is freed then.
  @Test(arguments: [false, true])
  func aNodeDroppedInsideTheBatchThatWroteItIsFreedWhenTheBatchEnds(throwing: Bool) async {
    struct Failure: Error {}
    let tracker = LifetimeTracker()
    let source = Stored(wrappedValue: 1)
    var stored: Stored<Int>? = tracker.track(Stored(wrappedValue: 1))
    var computed: Computed<Int>? = tracker.track(Computed { _ in source.wrappedValue * 10 })
    #expect(computed?.wrappedValue == 10)
    let finished = Result {
      try withGraphBatch {
        stored?.wrappedValue = 2  // logged
        source.wrappedValue = 2
        #expect(computed?.wrappedValue == 20)  // its new value logged too
        (stored, computed) = (nil, nil)
        #expect(tracker.aliveCount == 1)  // the log keeps the stored node for a rollback
        if throwing { throw Failure() }
      }
    }
    #expect((try? finished.get()) != nil || throwing)
    #expect(source.wrappedValue == (throwing ? 1 : 2))
    #expect(await eventually { tracker.aliveCount == 0 })
  }

  /// A node made, read and dropped inside a computation, then another made in its
  /// place: the second is a dependency like any other, whose writes run the
  /// computation again.
  @Test func aNodeMadeAfterATemporaryInsideAComputationIsADependency() {
    final class Holder: @unchecked Sendable { var kept: Stored<Int>? }
    let holder = Holder()
    let runs = Counter()
    let computed = Computed { _ -> Int in
      runs.tick()
      if holder.kept == nil {
        do {
          let temporary = Stored(wrappedValue: 7)
          _ = temporary.wrappedValue
          _ = temporary.wrappedValue
        }
        holder.kept = Stored(wrappedValue: 5)
      }
      return holder.kept!.wrappedValue
    }
    #expect(computed.wrappedValue == 5)
    holder.kept!.wrappedValue = 9
    #expect(computed.wrappedValue == 9)
    #expect(runs.value == 2)
  }

  @Test func chainsAreFreedWhole() async {
    let tracker = LifetimeTracker()
    do {
      let head = tracker.track(Stored(wrappedValue: 0))
      var last: Computed<Int> = Computed { _ in head.wrappedValue }
      for _ in 0..<100 {
        let previous = last
        last = tracker.track(Computed { _ in previous.wrappedValue + 1 })
      }
      #expect(last.wrappedValue == 100)
    }
    #expect(await eventually { tracker.aliveCount == 0 })
  }
}

@Suite("Lifetime, in a process of its own")
struct IsolatedLifetimeTests {
  /// Other suites create nodes concurrently in this process, so the exact
  /// C node count is checked in a child process.
  @Test func everyCNodeIsDestroyedWithItsSwiftNode() async {
    await #expect(processExitsWith: .success) {
      let before = GraphCore.liveNodeCount
      do {
        let a = Stored(wrappedValue: 1)
        let b = Computed { _ in a.wrappedValue * 2 }
        let c = b.map { _, value in value + 1 }
        let subscription = withGraphTracking { c.onChange { _ in } }
        precondition(c.wrappedValue == 3)
        precondition(GraphCore.liveNodeCount == before + 4)  // 3 nodes + 1 effect
        subscription.cancel()
      }
      precondition(GraphCore.liveNodeCount == before, "C nodes leaked")
    }
  }
}

@Suite("Deep graphs")
struct DeepGraphTests {
  @Test(
    .timeLimit(.minutes(2)),
    .disabled(
      if: TransactionDeepChainTests.underThreadSanitizer,
      "ThreadSanitizer cannot follow the core's stack switch"))
  func aChainOf100kComputedsEvaluatesFromScratch() async {
    let head = Stored(wrappedValue: 0)
    var chain: [Computed<Int>] = []
    chain.reserveCapacity(100_000)
    var previous: Computed<Int> = Computed { _ in head.wrappedValue }
    chain.append(previous)
    for _ in 1..<100_000 {
      let source = previous
      previous = Computed { _ in source.wrappedValue + 1 }
      chain.append(previous)
    }
    #expect(previous.wrappedValue == 99_999)  // first evaluation: deep recursion
    head.wrappedValue = 1
    #expect(previous.wrappedValue == 100_000)  // refresh: iterative
    // Releasing the tail frees the whole chain through the closures'
    // captures: iteratively, not 100k deinit calls deep.
    let tracker = LifetimeTracker()
    _ = tracker.track(chain[0])
    chain = []
    previous = Computed { _ in 0 }
    // A graph snapshot on another thread (introspection tests) may hold a
    // node for a moment and release it there.
    #expect(await eventually { tracker.aliveCount == 0 })
  }
}
