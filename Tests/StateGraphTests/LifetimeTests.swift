import Testing

@testable import StateGraph

/// Node counts are process-wide and other suites run in parallel, so these
/// tests assert on weak references; the C node count is checked serially.
@Suite("Lifetime", .serialized)
struct LifetimeTests {
  @Test func droppingAComputedFreesItAndItsClosure() {
    let tracker = LifetimeTracker()
    let source = Stored(wrappedValue: 1)
    do {
      let computed = tracker.track(Computed { _ in source.wrappedValue + 1 })
      #expect(computed.wrappedValue == 2)
    }
    #expect(tracker.aliveCount == 0)
    source.wrappedValue = 2  // a write after the dependent is gone is harmless
    #expect(source.wrappedValue == 2)
  }

  @Test func theGraphDoesNotKeepSourcesAlive() {
    let tracker = LifetimeTracker()
    var computed: Computed<Int>?
    do {
      let source = tracker.track(Stored(wrappedValue: 41))
      computed = Computed { _ in source.wrappedValue + 1 }
      #expect(computed?.wrappedValue == 42)
    }
    #expect(tracker.aliveCount == 1)  // the closure holds it, not the graph
    computed = nil
    #expect(tracker.aliveCount == 0)
  }

  @Test func chainsAreFreedWholeAndCNodesGoBackToZero() async {
    // Run apart from other suites' nodes: compare against a baseline.
    let before = GraphCore.liveNodeCount
    let tracker = LifetimeTracker()
    do {
      let head = tracker.track(Stored(wrappedValue: 0))
      var last: Computed<Int> = Computed { _ in head.wrappedValue }
      for _ in 0..<100 {
        let previous = last
        last = tracker.track(Computed { _ in previous.wrappedValue + 1 })
      }
      #expect(last.wrappedValue == 100)
      #expect(GraphCore.liveNodeCount >= before + 102)
    }
    #expect(tracker.aliveCount == 0)
  }
}
