import Foundation
import Testing

@testable import StateGraph

/// `withStateGraphTrackingStream` and `GraphTrackings`: tracked closures as
/// asynchronous sequences (upstream's spellings).
@Suite("Tracking streams")
struct TrackingStreamTests {
  @Test(.timeLimit(.minutes(1))) func aStreamYieldsTheFirstValueThenEachChange() async {
    let first = Stored(wrappedValue: "John")
    let last = Stored(wrappedValue: "Doe")
    let names = withStateGraphTrackingStream(apply: { "\(first.wrappedValue) \(last.wrappedValue)" })
    var iterator = names.makeAsyncIterator()
    #expect(await iterator.next() == "John Doe")
    first.wrappedValue = "Jane"
    #expect(await iterator.next() == "Jane Doe")
    last.wrappedValue = "Smith"
    #expect(await iterator.next() == "Jane Smith")
  }

  @Test(.timeLimit(.minutes(1))) func aStreamTracksOnlyWhatTheLastRunRead() async {
    let useA = Stored(wrappedValue: true)
    let a = Stored(wrappedValue: "A")
    let b = Stored(wrappedValue: "B")
    let runs = Counter()
    let values = withStateGraphTrackingStream(apply: {
      runs.tick()
      return useA.wrappedValue ? a.wrappedValue : b.wrappedValue
    })
    var iterator = values.makeAsyncIterator()
    #expect(await iterator.next() == "A")
    b.wrappedValue = "B2"  // not read: no run
    useA.wrappedValue = false
    #expect(await iterator.next() == "B2")
    a.wrappedValue = "A2"  // not read any more
    b.wrappedValue = "B3"
    #expect(await iterator.next() == "B3")
    #expect(runs.value == 3)
  }

  @Test(.timeLimit(.minutes(1))) func endingTheStreamStopsTracking() async {
    let value = Stored(wrappedValue: 0)
    let runs = Counter()
    let task = Task {
      for await seen in withStateGraphTrackingStream(apply: { () -> Int in
        runs.tick()
        return value.wrappedValue
      }) where seen == 1 { break }
    }
    while runs.value == 0 { await Task.yield() }
    value.wrappedValue = 1
    await task.value  // the loop ended: its stream is released, tracking stops
    let runsWhenDone = runs.value
    value.wrappedValue = 2
    value.wrappedValue = 3
    #expect(runs.value == runsWhenDone)
  }

  @Test(.timeLimit(.minutes(1))) func graphTrackingsStartsWithTheCurrentValue() async {
    let first = Stored(wrappedValue: "John")
    let last = Stored(wrappedValue: "Doe")
    var names = GraphTrackings { "\(first.wrappedValue) \(last.wrappedValue)" }.makeAsyncIterator()
    #expect(await names.next() == "John Doe")
    first.wrappedValue = "Jane"
    #expect(await names.next() == "Jane Doe")
    last.wrappedValue = "Smith"
    #expect(await names.next() == "Jane Smith")
  }

  @Test(.timeLimit(.minutes(1))) func graphTrackingsSeesChangesInBetweenTogether() async {
    let x = Stored(wrappedValue: 1)
    let y = Stored(wrappedValue: 2)
    var sums = GraphTrackings { x.wrappedValue + y.wrappedValue }.makeAsyncIterator()
    #expect(await sums.next() == 3)
    x.wrappedValue = 5
    y.wrappedValue = 10
    #expect(await sums.next() == 15)
  }

  @Test(.timeLimit(.minutes(1))) func eachLoopOfGraphTrackingsGetsEveryValue() async {
    let value = Stored(wrappedValue: 0)
    let trackings = GraphTrackings { value.wrappedValue }
    var a = trackings.makeAsyncIterator()
    var b = trackings.makeAsyncIterator()
    #expect(await a.next() == 0)
    #expect(await b.next() == 0)
    value.wrappedValue = 1
    #expect(await a.next() == 1)
    #expect(await b.next() == 1)
  }

  @Test(.timeLimit(.minutes(1))) func untilFinishedEndsTheLoop() async {
    let iterations = Stored(wrappedValue: 0)
    let value = Stored(wrappedValue: 0)
    var values = GraphTrackings<Int, Never>.untilFinished({
      iterations.wrappedValue += 1
      return iterations.wrappedValue > 3 ? .finish : .next(value.wrappedValue)
    }).makeAsyncIterator()
    #expect(await values.next() == 0)
    value.wrappedValue = 10
    #expect(await values.next() == 10)
    value.wrappedValue = 20
    #expect(await values.next() == 20)
    value.wrappedValue = 30
    #expect(await values.next() == nil)
  }

  /// `GraphObservation`, swift-state-graph's other name, loops the same way.
  @Test(.timeLimit(.minutes(1))) func graphObservationIsGraphTrackingsThatDoesNotThrow() async {
    let useA = Stored(wrappedValue: true)
    let a = Stored(wrappedValue: "A")
    let b = Stored(wrappedValue: "B")
    var values = GraphObservation({ useA.wrappedValue ? a.wrappedValue : b.wrappedValue })
      .makeAsyncIterator()
    #expect(await values.next() == "A")
    b.wrappedValue = "B2"  // not read by the last run
    useA.wrappedValue = false
    #expect(await values.next() == "B2")
    var counts = GraphObservation<Int>.untilFinished({
      b.wrappedValue == "stop" ? .finish : .next(b.wrappedValue.count)
    }).makeAsyncIterator()
    #expect(await counts.next() == 2)
    b.wrappedValue = "stop"
    #expect(await counts.next() == nil)
  }

  @Test(.timeLimit(.minutes(1))) func cancellingTheLoopsTaskEndsItAndStopsTracking() async {
    let value = Stored(wrappedValue: 0)
    let runs = Counter()
    let started = Counter()
    let task = Task {
      var seen: [Int] = []
      for await next in GraphTrackings({ () -> Int in
        runs.tick()
        return value.wrappedValue
      }) {
        seen.append(next)
        started.tick()
      }
      return seen  // reached once cancelled: the loop ended, it did not throw
    }
    while started.value == 0 { await Task.yield() }
    task.cancel()
    #expect(await task.value == [0])
    value.wrappedValue = 1
    #expect(runs.value == 1)
  }

  @Test(.timeLimit(.minutes(1))) func aThrowEndsTheLoopWithTheError() async throws {
    struct TooBig: Error, Equatable {}
    let value = Stored(wrappedValue: 0)
    var values = GraphTrackings { () throws(TooBig) -> Int in
      if value.wrappedValue > 1 { throw TooBig() }
      return value.wrappedValue
    }.makeAsyncIterator()
    #expect(try await values.next() == 0)
    value.wrappedValue = 2
    await #expect(throws: TooBig()) { try await values.next() }
    #expect(try await values.next() == nil)
  }
}
