import Observation
import Testing

@testable import StateGraph

/// Apple's macro, for comparison: the timing ours must match.
@Observable final class PlainCounter: @unchecked Sendable {
  var count = 0
}

final class GraphCounter: GraphObject, @unchecked Sendable {
  @GraphStored var count: Int = 0
}

/// `withObservationTracking`'s onChange runs before the change (willSet),
/// as for an `@Observable` class; the graph's own observers after it.
@Suite("Observation timing")
struct ObservationTimingTests {
  @Test func onChangeReadsTheOldValueLikeAnObservableClass() {
    let plain = PlainCounter()
    let model = GraphCounter()
    let node = Stored(wrappedValue: 0)
    let doubled = Computed { _ in node.wrappedValue * 2 }
    let seen = Recorder<String>()
    withObservationTracking { _ = plain.count } onChange: {
      seen.append("@Observable \(plain.count)")
    }
    withObservationTracking { _ = model.count } onChange: {
      seen.append("@GraphStored \(model.count)")
    }
    withObservationTracking { _ = node.wrappedValue } onChange: {
      seen.append("Stored \(node.wrappedValue), doubled \(doubled.wrappedValue)")
    }
    plain.count = 1
    model.count = 1
    node.wrappedValue = 1
    #expect(seen.values == ["@Observable 0", "@GraphStored 0", "Stored 0, doubled 0"])
    #expect(plain.count == 1 && model.count == 1 && node.wrappedValue == 1)
    #expect(doubled.wrappedValue == 2)
  }

  /// Observation hears `willSet` first (old value), then the graph's
  /// handlers run with the new one (synchronous delivery: within the write).
  @Test func graphHandlersStillRunAfterTheChange() {
    let node = Stored(wrappedValue: 0)
    let log = Recorder<String>()
    let subscription = withGraphTracking(delivery: .synchronous) {
      node.onChange { log.append("onChange \($0), reads \(node.wrappedValue)") }
      withGraphTrackingGroup { log.append("group \(node.wrappedValue)") }
    }
    withObservationTracking { _ = node.wrappedValue } onChange: {
      log.append("observation reads \(node.wrappedValue)")
    }
    node.wrappedValue = 1
    #expect(
      log.values == [
        "onChange 0, reads 0", "group 0", "observation reads 0", "onChange 1, reads 1", "group 1",
      ])
    _ = subscription
  }

  @Test func anEqualWriteTellsObservationNothing() {
    let node = Stored(wrappedValue: 3)
    let fired = Counter()
    withObservationTracking { _ = node.wrappedValue } onChange: { fired.tick() }
    node.wrappedValue = 3
    #expect(fired.value == 0)
    node.wrappedValue = 4
    #expect(fired.value == 1)
  }

  @Test(.timeLimit(.minutes(1))) func observationsStreamDeliversTheNewValues() async {
    let node = Stored(wrappedValue: 0)
    let model = GraphCounter()
    var values = Observations { node.wrappedValue }.makeAsyncIterator()
    var counts = Observations { model.count }.makeAsyncIterator()
    #expect(await values.next() == 0)
    #expect(await counts.next() == 0)
    node.wrappedValue = 1
    model.count = 5
    #expect(await values.next() == 1)
    #expect(await counts.next() == 5)
    node.wrappedValue = 2
    #expect(await values.next() == 2)
  }

  @Test(.timeLimit(.minutes(1))) func observeStreamsDeliverTheNewValues() async {
    let model = GraphCounter()
    var values = model.$count.observe().makeAsyncIterator()
    #expect(await values.next() == 0)
    model.count = 1
    model.count = 2
    #expect(await values.next() == 1)
    #expect(await values.next() == 2)
  }
}
