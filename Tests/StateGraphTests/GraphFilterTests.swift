import Testing

@testable import StateGraph

/// The one filter family: ``GraphFilter``, its three filters, upstream's spellings, and
/// the three calls that take a filter.
@Suite("GraphFilter")
struct GraphFilterTests {
  @Test func theThreeFiltersPassWhatTheySay() {
    var distinct = DistinctFilter<Int>()
    #expect([1, 1, 2, 2, 1].map { distinct.send(value: $0) } == [1, nil, 2, nil, 1])

    let passthrough = PassthroughFilter<Int>()
    #expect([1, 1, 2].map { passthrough.send(value: $0) } == [1, 1, 2])

    // `previous` is the last value passed, not the last value seen.
    var bigSteps = ComparisonFilter<Int> { previous, next in abs(next - previous) >= 10 }
    #expect([0, 6, 12, 15, 22].map { bigSteps.send(value: $0) } == [0, nil, 12, nil, 22])
  }

  @Test func upstreamsProtocolNameIsGraphFilter() {
    struct Even: Filter {  // upstream's name for the protocol
      func send(value: Int) -> Int? { value.isMultiple(of: 2) ? value : nil }
    }
    func accepts(_ filter: some GraphFilter<Int>) -> Bool { true }
    #expect(accepts(Even()))
  }

  @Test func onChangeTakesAnyFilter() {
    struct Even: GraphFilter {
      func send(value: Int) -> Int? { value.isMultiple(of: 2) ? value : nil }
    }
    let level = Stored(wrappedValue: 0)
    let even = Recorder<Int>()
    let steps = Recorder<Int>()
    let subscription = withGraphTracking {
      level.onChange(filter: Even()) { even.append($0) }
      level.onChange(filter: ComparisonFilter { old, new in abs(new - old) >= 5 }) {
        steps.append($0)
      }
    }
    for value in [1, 2, 6, 8, 3] { level.wrappedValue = value }
    #expect(even.values == [0, 2, 6, 8])
    #expect(steps.values == [0, 6])
    _ = subscription
  }

  @Test(.timeLimit(.minutes(1))) func observeTakesAnyFilter() async {
    let level = Stored(wrappedValue: 0)
    var values = level.observe(filter: ComparisonFilter { old, new in new - old >= 10 })
      .makeAsyncIterator()
    #expect(await values.next() == 0)
    level.wrappedValue = 5
    level.wrappedValue = 12
    #expect(await values.next() == 12)
  }

  @Test func withGraphTrackingMapTakesAnyFilter() {
    let temperature = Stored(wrappedValue: 20)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking(delivery: .synchronous) {
      withGraphTrackingMap(
        { temperature.wrappedValue }, filter: ComparisonFilter { old, new in abs(new - old) >= 5 }
      ) { seen.append($0) }
    }
    for value in [22, 26, 27, 20] { temperature.wrappedValue = value }
    #expect(seen.values == [20, 26, 20])
    _ = subscription
  }
}
