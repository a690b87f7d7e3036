import Testing

@testable import StateGraph

/// Writes that would re-run their own writer forever stop the program with
/// a message naming what loops, instead of hanging. (C effects that write
/// each other's inputs within one write are bounded by the core:
/// Tests/CoreTests/test-effect-order.c.)
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

  @Test func groupsWritingEachOthersInputsStopNamingBothGroups() async {
    await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let a = Stored(wrappedValue: 0)
      let b = Stored(wrappedValue: 0)
      let subscription = withGraphTracking {
        withGraphTrackingGroup { b.wrappedValue = a.wrappedValue + 1 }
        withGraphTrackingGroup { a.wrappedValue = b.wrappedValue + 1 }
      }
      // Scheduled re-runs: the chain goes on in tasks, and the loop ends the
      // process first.
      try? await Task.sleep(for: .seconds(60))
      _ = subscription
    }
    .map { result in
      let message = String(decoding: result.standardErrorContent, as: UTF8.self)
      // (Inside an exit test, `#line` is the line of the `#expect`.)
      #expect(
        message.contains(
          "observers writing each other's inputs without end: "
            + "withGraphTrackingGroup (StateGraphTests/WriteLoopTests.swift:"))
    }
  }

  @Test func handlersWritingEachOthersInputsStopNamingBothHandlers() async {
    await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let ping = Stored(name: "ping", wrappedValue: 0)
      let pong = Stored(name: "pong", wrappedValue: 0)
      let subscription = withGraphTracking {
        ping.onChange { pong.wrappedValue = $0 + 1 }
        pong.onChange { ping.wrappedValue = $0 + 1 }
      }
      _ = subscription
    }
    .map { result in
      let message = String(decoding: result.standardErrorContent, as: UTF8.self)
      // Both run within the write of the first delivery: the core's bound.
      #expect(message.contains("onChange(ping) (StateGraphTests/WriteLoopTests.swift:"))
      #expect(message.contains(") -> onChange(pong) (StateGraphTests/WriteLoopTests.swift:"))
    }
  }

  /// Hops between actors keep the chain: the loop is found although no run
  /// causes the next on its own stack.
  @Test func handlersOnTwoActorsWritingEachOthersInputsStop() async {
    await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      actor Side {
        var runs = 0
        func register(_ input: Stored<Int>, writes output: Stored<Int>) -> StateGraphSubscription {
          withGraphTracking {
            input.onChange {
              self.runs += 1  // captures `self`: the handler is isolated to this actor
              output.wrappedValue = $0 + 1
            }
          }
        }
      }
      let ping = Stored(name: "ping", wrappedValue: 0)
      let pong = Stored(name: "pong", wrappedValue: 0)
      let left = Side()
      let right = Side()
      let subscriptions = [
        await left.register(ping, writes: pong), await right.register(pong, writes: ping),
      ]
      try? await Task.sleep(for: .seconds(60))  // the loop ends the process first
      _ = subscriptions
    }
    .map { result in
      let message = String(decoding: result.standardErrorContent, as: UTF8.self)
      #expect(message.contains("observers writing each other's inputs without end: "))
      #expect(message.contains("onChange(ping)"))
      #expect(message.contains("onChange(pong)"))
    }
  }

  /// The bound counts runs in a row that cause each other, so a ping-pong
  /// that settles runs to its end, and unrelated writes never add up.
  @Test func handlersThatSettleBeforeTheBoundRunToTheEnd() {
    let ping = Stored(wrappedValue: 0)
    let pong = Stored(wrappedValue: 0)
    let subscription = withGraphTracking {
      ping.onChange { if $0 < 90 { pong.wrappedValue = $0 + 1 } }
      pong.onChange { if $0 < 90 { ping.wrappedValue = $0 + 1 } }
    }
    ping.wrappedValue = 1  // 89 runs in a row, each caused by the one before
    #expect(ping.wrappedValue == 90 || pong.wrappedValue == 90)
    #expect(max(ping.wrappedValue, pong.wrappedValue) == 90)
    for round in 0..<300 { ping.wrappedValue = 100 + round }  // each write its own chain
    #expect(pong.wrappedValue == 90)
    _ = subscription
  }

  /// Every fresh thread's first write is its first flush: those must not
  /// look like one flush running the handler's effect again and again.
  /// (They did: the 101st thread's write stopped the program.)
  @Test func manyThreadsWritingOnceEachAreNoLoop() {
    let value = Stored(wrappedValue: 0)
    let runs = Counter()
    let subscription = withGraphTracking { value.onChange(isolation: nil) { _ in runs.tick() } }
    for next in 1...250 { #expect(onAnotherThread { value.wrappedValue = next }) }
    #expect(runs.value == 251)
    _ = subscription
  }
}
