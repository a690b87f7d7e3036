import Testing

@testable import StateGraph

/// Writes that would re-run their own writer forever stop the program with
/// the cycle diagnostic, naming the nodes, instead of hanging.
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

  @Test func twoGroupsWritingEachOtherStopWithTheLoopMessage() async {
    await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let a = Stored(name: "a", wrappedValue: 0)
      let b = Stored(name: "b", wrappedValue: 0)
      let subscription = pingPong(a, b)
      a.wrappedValue = 100
      _ = subscription
    }
    .map { result in
      let message = String(decoding: result.standardErrorContent, as: UTF8.self)
      #expect(message.contains("dependency cycle: withGraphTrackingGroup"))
      #expect(message.contains("effects writing what the other reads"))
    }
  }
}

/// Two groups with no isolation (a synchronous, nonisolated function), so
/// each runs on the writing thread, inside the write.
private func pingPong(_ a: Stored<Int>, _ b: Stored<Int>) -> StateGraphSubscription {
  withGraphTracking {
    withGraphTrackingGroup { b.wrappedValue = a.wrappedValue + 1 }
    withGraphTrackingGroup { a.wrappedValue = b.wrappedValue + 1 }
  }
}
