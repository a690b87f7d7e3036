import Observation
import Testing

@testable import StateGraph

@Suite("Observation")
struct ObservationTests {
  @Test func withObservationTrackingSeesStoredChanges() {
    let count = Stored(wrappedValue: 0)
    let fired = Counter()
    let value = withObservationTracking {
      count.wrappedValue
    } onChange: {
      fired.tick()
    }
    #expect(value == 0)
    #expect(fired.value == 0)
    count.wrappedValue = 1
    #expect(fired.value == 1)
    count.wrappedValue = 2  // one-shot, like every Observation onChange
    #expect(fired.value == 1)
  }

  @Test func onlyTheNodesReadAreObserved() {
    let read = Stored(wrappedValue: 0)
    let other = Stored(wrappedValue: 0)
    let otherComputed = Computed { _ in other.wrappedValue + 1 }
    _ = otherComputed.wrappedValue
    let fired = Counter()
    withObservationTracking { _ = read.wrappedValue } onChange: { fired.tick() }
    other.wrappedValue = 1
    #expect(fired.value == 0)
    read.wrappedValue = 1
    #expect(fired.value == 1)
  }

  @Test func anEqualWriteDoesNotFire() {
    let count = Stored(wrappedValue: 5)
    let fired = Counter()
    withObservationTracking { _ = count.wrappedValue } onChange: { fired.tick() }
    count.wrappedValue = 5
    #expect(fired.value == 0)
  }

  @Test func withObservationTrackingSeesComputedChangesAndStaysLazy() {
    let runs = Counter()
    let count = Stored(wrappedValue: 1)
    let doubled = Computed { _ in runs.run(count.wrappedValue * 2) }
    let fired = Counter()
    let value = withObservationTracking { doubled.wrappedValue } onChange: { fired.tick() }
    #expect(value == 2)
    count.wrappedValue = 2
    #expect(fired.value == 1)
    #expect(runs.value == 1)  // not recomputed until read
    #expect(doubled.wrappedValue == 4)
    #expect(runs.value == 2)
  }

  @Test func readsInsideAComputationAreNotReportedToObservation() {
    let hidden = Stored(wrappedValue: 1)
    let derived = Computed { _ in hidden.wrappedValue + 1 }
    let fired = Counter()
    _ = derived.wrappedValue  // computed outside tracking first
    withObservationTracking { _ = derived.wrappedValue } onChange: { fired.tick() }
    hidden.wrappedValue = 10  // reaches `derived`, which reports it
    #expect(fired.value == 1)
  }

  /// A computed node gets its registrar and watcher at its first read Observation
  /// tracks: a node that already ran (read by another node) and is first observed then
  /// must still be armed by that read.
  @Test func aComputedFirstObservedAfterItRanIsArmedByThatRead() {
    let source = Stored(wrappedValue: 1)
    let derived = Computed { _ in source.wrappedValue + 1 }
    let reader = Computed { _ in derived.wrappedValue * 10 }
    #expect(reader.wrappedValue == 20)  // `derived` ran inside a computation only
    let fired = Counter()
    let value = withObservationTracking { derived.wrappedValue } onChange: { fired.tick() }
    #expect(value == 2)
    source.wrappedValue = 5
    #expect(fired.value == 1)
    #expect(derived.wrappedValue == 6)
  }

  @Test func batchedWritesReachObservationAfterTheBatch() {
    let a = Stored(wrappedValue: 0)
    let fired = Counter()
    withObservationTracking { _ = a.wrappedValue } onChange: { fired.tick() }
    withGraphBatch {
      a.wrappedValue = 1
      #expect(fired.value == 0)
    }
    #expect(fired.value == 1)
  }

  /// A node never read outside a computation skips the registrar on writes;
  /// the first such read must still see every change after it.
  @Test func aNodeFirstObservedAfterWritesStillReportsChanges() {
    let count = Stored(wrappedValue: 0)
    let derived = Computed { _ in count.wrappedValue * 2 }
    count.wrappedValue = 1
    #expect(derived.wrappedValue == 2)
    let fired = Counter()
    withObservationTracking { _ = count.wrappedValue } onChange: { fired.tick() }
    count.wrappedValue = 2
    #expect(fired.value == 1)
  }

  /// A batch's first write to a node happened before anyone observed it; a
  /// later write in the same batch, after an observer's read, must reach it.
  @Test func aNodeObservedInsideABatchHearsOfTheBatch() {
    let a = Stored(wrappedValue: 0)
    let fired = Counter()
    withGraphBatch {
      a.wrappedValue = 1
      withObservationTracking { _ = a.wrappedValue } onChange: { fired.tick() }
      a.wrappedValue = 2
      #expect(fired.value == 0)
    }
    #expect(fired.value == 1)
  }

  @Test func aGraphObjectModelIsObservable() {
    final class Model: GraphObject, @unchecked Sendable {
      let countNode = Stored(name: "count", wrappedValue: 0)
      var count: Int {
        get { countNode.wrappedValue }
        set { countNode.wrappedValue = newValue }
      }
    }
    func requiresObservable<T: Observable>(_: T) {}
    let model = Model()
    requiresObservable(model)
    let fired = Counter()
    withObservationTracking { _ = model.count } onChange: { fired.tick() }
    model.count += 1
    #expect(fired.value == 1)
  }
}
