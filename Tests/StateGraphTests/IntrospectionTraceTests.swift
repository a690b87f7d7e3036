import Observation
import StateGraph
import Testing

/// withGraphTrace reports the exact chain of a write: marks, recomputes with
/// their outcome (equality cut-offs included), observers.
@Suite("Introspection: tracing")
struct IntrospectionTraceTests {
  /// a → b = sign(a), a → c = a / 10, (b, c) → d, d → onChange(d).
  final class Diamond {
    let a = Stored(name: "a", wrappedValue: 1, file: "diamond.swift", line: 1)
    let b: Computed<Int>
    let c: Computed<Int>
    let d: Computed<Int>
    let seen = Recorder<Int>()
    var subscription: StateGraphSubscription?

    init() {
      let a = a
      b = Computed(name: "b", file: "diamond.swift", line: 2) { _ in a.wrappedValue.signum() }
      c = Computed(name: "c", file: "diamond.swift", line: 3) { _ in a.wrappedValue / 10 }
      let (b, c) = (b, c)
      d = Computed(name: "d", file: "diamond.swift", line: 4) { _ in b.wrappedValue + c.wrappedValue }
      let (d, seen) = (d, seen)
      subscription = withGraphTracking { d.onChange { seen.append($0) } }
    }
  }

  @Test func oneSideCutOff() {
    let diamond = Diamond()
    let trace = withGraphTrace { diamond.a.wrappedValue = 15 }  // sign 1 → 1, tenth 0 → 1
    #expect(
      trace.description == """
        write a (diamond.swift:1)
          b: dirty
          c: dirty
            d: check
              onChange(d): check
          onChange(d): ran
            d: recomputed, changed
              b: recomputed, unchanged (cut off)
              c: recomputed, changed

        """)
    #expect(trace.events.map(\.kind) == [.write, .mark, .mark, .mark, .mark, .update, .update, .update, .update])
    #expect(trace.events.map(\.depth) == [0, 1, 1, 2, 3, 1, 2, 3, 3])
    #expect(trace.events.compactMap(\.outcome) == [.ran, .changed, .unchanged, .changed])
    #expect(trace.events.compactMap(\.state) == [.dirty, .dirty, .check, .check])
    #expect(trace.events[0].nodeKind == .stored)
    #expect(trace.events[4].nodeKind == .effect)
    #expect(trace.chains.count == 1)
    #expect(diamond.seen.values == [1, 2])
  }

  @Test func everythingCutOff() {
    let diamond = Diamond()
    let trace = withGraphTrace { diamond.a.wrappedValue = 2 }  // sign 1 → 1, tenth 0 → 0
    #expect(
      trace.description == """
        write a (diamond.swift:1)
          b: dirty
          c: dirty
            d: check
              onChange(d): check
          onChange(d): verified, not run
            d: verified, not recomputed
              b: recomputed, unchanged (cut off)
              c: recomputed, unchanged (cut off)

        """)
    #expect(diamond.seen.values == [1])
  }

  @Test func chainsReachTheHandlerAsTheyComplete() {
    let diamond = Diamond()
    var delivered: [String] = []
    let trace = withGraphTrace {
      withGraphBatch {
        diamond.a.wrappedValue = 30
        diamond.a.wrappedValue = 40
        #expect(delivered.count == 2)
      }
      #expect(delivered.count == 3)
    } onChain: { chain in
      delivered.append(chain.description)
    }
    #expect(
      delivered == [
        """
        write a (diamond.swift:1)
          b: dirty
          c: dirty
            d: check
              onChange(d): check

        """,
        "write a (diamond.swift:1)\n",
        """
        end of batch
          onChange(d): ran
            d: recomputed, changed
              b: recomputed, unchanged (cut off)
              c: recomputed, changed

        """,
      ])
    #expect(trace.chains.map(\.description) == delivered)
    #expect(diamond.seen.values == [1, 5])
  }

  /// A read Observation does not track gives the node no watcher: a write marks it, and
  /// nothing else hears.
  @Test func aReadNobodyTracksLeavesNoWatcher() {
    let a = Stored(name: "a", wrappedValue: 1, file: "untracked.swift", line: 1)
    let double = Computed(name: "double", file: "untracked.swift", line: 2) { _ in
      a.wrappedValue * 2
    }
    #expect(double.wrappedValue == 2)
    let trace = withGraphTrace { a.wrappedValue = 2 }
    #expect(trace.description == "write a (untracked.swift:1)\n  double: dirty\n")
  }

  @Test func aLazyReadIsItsOwnChain() {
    let a = Stored(name: "a", wrappedValue: 1, file: "lazy.swift", line: 1)
    let double = Computed(name: "double", file: "lazy.swift", line: 2) { _ in a.wrappedValue * 2 }
    #expect(withObservationTracking { double.wrappedValue } onChange: {} == 2)
    let trace = withGraphTrace {
      a.wrappedValue = 2
      #expect(double.wrappedValue == 4)
    }
    // Observation tracked a read of `double`, so its watcher hears of the write.
    #expect(
      trace.description == """
        write a (lazy.swift:1)
          double: dirty
          double: watcher notified
        read double (lazy.swift:2)
          double: recomputed, changed

        """)
  }

  @Test func offByDefault() {
    let diamond = Diamond()
    diamond.a.wrappedValue = 20
    let trace = withGraphTrace {}
    #expect(trace.events.isEmpty)
    #expect(trace.description.isEmpty)
  }
}
