import Testing

@testable import StateGraph

/// Writes that would re-run their own writer forever stop the program with
/// the cycle diagnostic, naming the nodes, instead of hanging. (Effects that
/// write each other's inputs are bounded by the core within one write:
/// Tests/CoreTests/test-effect-order.c. Groups re-running through their
/// delivery queues are not bounded yet: see the README.)
@Suite("Write loops")
struct WriteLoopTests {
  @Test func aComputationWritingANodeItReadsStopsWithTheCycleMessage() async {
    await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let count = Stored(name: "count", wrappedValue: 0)
      let next = Computed(name: "next") { _ in
        let value = count.wrappedValue + 1
        count.wrappedValue = value  // writes its own source
        return value
      }
      _ = next.wrappedValue
    }
    .map { result in
      let message = String(decoding: result.standardErrorContent, as: UTF8.self)
      #expect(message.contains("dependency cycle: next (StateGraphTests/WriteLoopTests.swift:"))
      #expect(message.contains("writes count (StateGraphTests/WriteLoopTests.swift:"))
    }
  }
}
