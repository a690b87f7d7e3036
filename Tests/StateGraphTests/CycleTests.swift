import Testing

@testable import StateGraph

@Suite("Cycles")
struct CycleTests {
  @Test func aCycleStopsTheProgramNamingTheNodes() async {
    await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      final class Loop: @unchecked Sendable {
        var a: Computed<Int>!
        var b: Computed<Int>!
      }
      let loop = Loop()
      loop.a = Computed(name: "a") { _ in loop.b.wrappedValue + 1 }
      loop.b = Computed(name: "b") { _ in loop.a.wrappedValue + 1 }
      _ = loop.a.wrappedValue
    }
    .map { result in
      let message = String(decoding: result.standardErrorContent, as: UTF8.self)
      #expect(message.contains("dependency cycle: a (StateGraphTests/CycleTests.swift:"))
      #expect(message.contains("-> b (StateGraphTests/CycleTests.swift:"))
    }
  }
}
