import StateGraphTestSupport
import Testing

@testable import StateGraph

/// A computed node keeps its cached value in a block of its own, and after the value a
/// reference to the rollback bookkeeping that a batch makes. These pin that block for
/// values of several sizes and alignments, and that dropping the node frees all of it.
@Suite("Computed value block")
struct ComputedValueBlockTests {
  struct Failure: Error {}
  struct Wide: Equatable {
    var a, b, c: Int
    var flag: Bool
  }
  final class Payload: Sendable {
    let number: Int
    init(_ number: Int) { self.number = number }
  }

  private func revisions<Value>(of node: Computed<Value>) -> Revisions<Value>? {
    node.box._withUnsafeGuaranteedRef { box in box.lock.withLock { box.revisions } }
  }

  @Test func aRolledBackBatchPutsBackValuesOfEveryLayout() {
    let s = Stored(wrappedValue: 1)
    let byte = Computed { _ in UInt8(s.wrappedValue) }
    let wide = Computed { _ in Wide(a: s.wrappedValue, b: 2, c: 3, flag: true) }
    let vector = Computed { _ in SIMD4<Float>(repeating: Float(s.wrappedValue)) }
    let text = Computed { _ in String(repeating: "x", count: s.wrappedValue) }
    #expect(byte.wrappedValue == 1 && wide.wrappedValue.a == 1)
    #expect(vector.wrappedValue == SIMD4(repeating: 1) && text.wrappedValue == "x")
    #expect(revisions(of: byte) == nil)  // no batch changed it yet
    #expect(throws: Failure.self) {
      try withGraphBatch {
        s.wrappedValue = 3
        #expect(byte.wrappedValue == 3 && wide.wrappedValue.a == 3)
        #expect(vector.wrappedValue == SIMD4(repeating: 3) && text.wrappedValue == "xxx")
        throw Failure()
      }
    }
    #expect(revisions(of: byte) != nil && revisions(of: wide) != nil)
    #expect(revisions(of: vector) != nil && revisions(of: text) != nil)
    #expect(byte.wrappedValue == 1)
    #expect(wide.wrappedValue == Wide(a: 1, b: 2, c: 3, flag: true))
    #expect(vector.wrappedValue == SIMD4(repeating: 1))
    #expect(text.wrappedValue == "x")
  }

  @Test func droppingANodeFreesItsValueAndItsBookkeeping() async {
    let tracker = LifetimeTracker()
    let s = Stored(wrappedValue: 1)
    do {
      let node = Computed { _ in tracker.track(Payload(s.wrappedValue)) }
      #expect(node.wrappedValue.number == 1)
      #expect(throws: Failure.self) {
        try withGraphBatch {
          s.wrappedValue = 2
          #expect(node.wrappedValue.number == 2)
          throw Failure()
        }
      }
      #expect(node.wrappedValue.number == 1)
      let kept = revisions(of: node)
      #expect(kept != nil)
      if let kept { tracker.track(kept) }
      #expect(tracker.trackedCount >= 3)  // two payloads and the bookkeeping
    }
    #expect(await eventually { tracker.aliveCount == 0 })
  }
}
