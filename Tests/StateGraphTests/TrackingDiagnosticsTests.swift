import Foundation
import Testing

@testable import StateGraph

/// `StateGraphDiagnostics`: the switches swift-state-graph users know, and what a
/// compute rule writing a node it reads does.
@Suite("Diagnostics", .serialized)
struct TrackingDiagnosticsTests {
  #if DEBUG
    /// Two writes of nodes it reads, in each of two runs: one warning for the
    /// registration. Disabled: none.
    @Test(.timeLimit(.minutes(1))) func aHandlerWritingWhatItReadsIsReportedOncePerRegistration()
      async
    {
      let previous = StateGraphDiagnostics.isSelfInvalidationWarningEnabled
      defer { StateGraphDiagnostics.isSelfInvalidationWarningEnabled = previous }
      StateGraphDiagnostics.isSelfInvalidationWarningEnabled = true
      let warnings = Recorder<String>()
      let first = Stored(name: "first", wrappedValue: 0)
      let second = Stored(name: "second", wrappedValue: 0)
      let trigger = Stored(wrappedValue: 0)
      let peerSaw = Recorder<Int>()
      StateGraphDiagnostics.$warningObserver.withValue({ warnings.append($0) }) {
        let subscription = withGraphTracking(delivery: .synchronous) {
          withGraphTrackingGroup(
            {
              _ = trigger.wrappedValue
              first.wrappedValue = first.wrappedValue + 1
              second.wrappedValue = second.wrappedValue + 1
            }, isolation: nil)
          withGraphTrackingGroup({ peerSaw.append(first.wrappedValue) }, isolation: nil)
        }
        trigger.wrappedValue = 1  // a second run: no second warning
        #expect(first.wrappedValue == 2)
        #expect(peerSaw.values == [1, 2])
        #expect(warnings.count == 1)
        #expect(
          warnings.values.first?.hasPrefix(
            "withGraphTrackingGroup (StateGraphTests/TrackingDiagnosticsTests.swift:") == true)
        #expect(warnings.values.first?.contains("wrote 'first', which it reads") == true)
        subscription.cancel()

        StateGraphDiagnostics.isSelfInvalidationWarningEnabled = false
        let silent = withGraphTracking {
          withGraphTrackingGroup({ first.wrappedValue = first.wrappedValue + 1 }, isolation: nil)
        }
        #expect(warnings.count == 1)
        silent.cancel()
      }
    }
  #endif

  /// Set to warn, a compute rule that writes a node it reads goes on: the value is
  /// stored and the rule's value computed, and the warning names both.
  @Test func aComputeRuleWritingWhatItReadsCanWarnInsteadOfStopping() {
    let previous = StateGraphDiagnostics.writeFromComputeRule
    defer { StateGraphDiagnostics.writeFromComputeRule = previous }
    StateGraphDiagnostics.writeFromComputeRule = .warn
    #expect(previous == .stop)
    let warnings = Recorder<String>()
    let count = Stored(name: "count", wrappedValue: 1)
    let next = Computed(name: "next") { _ in
      let value = count.wrappedValue
      count.wrappedValue = value * 10
      return value + 1
    }
    StateGraphDiagnostics.$warningObserver.withValue({ warnings.append($0) }) {
      #expect(next.wrappedValue == 2)
    }
    #expect(count.wrappedValue == 10)
    #expect(warnings.count == 1)
    #expect(warnings.values.first?.contains("a compute rule wrote a node it reads") == true)
    #expect(warnings.values.first?.contains("next (StateGraphTests/TrackingDiagnosticsTests.swift:") == true)
  }
}

@Suite("NodeInfo names")
struct NodeInfoNameTests {
  @Test func aNameConvertsAndComparesLikeAString() {
    let count = Stored(name: "count", wrappedValue: 0)
    let unnamed = Stored(wrappedValue: 0)
    let text: String? = count.info.name.map(String.init)
    #expect(text == "count")
    #expect(count.info.name == "count")
    #expect(count.info.name?.description == "count")
    #expect("\(count.info.name!)" == "count")
    #expect(unnamed.info.name == nil)
    #expect(unnamed.info.name.map(String.init) == nil)
  }
}
