import Testing

@testable import StateGraph

/// The one filter family: ``GraphFilter``, its upstream spellings, and
/// ``ChangeFilter`` used as one.
@Suite("GraphFilter")
struct GraphFilterTests {
  @Test func aChangeFilterPassesTheFirstValueThenWhatItsComparisonAccepts() {
    var distinct = ChangeFilter<Int>.distinct
    #expect([1, 1, 2, 2, 1].map { distinct.send(value: $0) } == [1, nil, 2, nil, 1])

    var all = ChangeFilter<Int>.all
    #expect([1, 1, 2].map { all.send(value: $0) } == [1, 1, 2])

    // `previous` is the last value passed, not the last value seen.
    var bigSteps = ChangeFilter<Int> { previous, next in abs(next - previous) >= 10 }
    #expect([0, 6, 12, 15, 22].map { bigSteps.send(value: $0) } == [0, nil, 12, nil, 22])
  }

  @Test func upstreamFiltersAreGraphFilters() {
    var distinct = DistinctFilter<Int>()
    #expect([3, 3, 4].map { distinct.send(value: $0) } == [3, nil, 4])
    let passthrough = PassthroughFilter<Int>()
    #expect([3, 3].map { passthrough.send(value: $0) } == [3, 3])

    struct Even: Filter {  // upstream's name for the protocol
      func send(value: Int) -> Int? { value.isMultiple(of: 2) ? value : nil }
    }
    func accepts(_ filter: some GraphFilter<Int>) -> Bool { true }
    #expect(accepts(Even()))
  }

  @Test func withGraphTrackingMapTakesAChangeFilter() {
    let temperature = Stored(wrappedValue: 20)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingMap(
        { temperature.wrappedValue }, filter: ChangeFilter { old, new in abs(new - old) >= 5 }
      ) { seen.append($0) }
    }
    for value in [22, 26, 27, 20] { temperature.wrappedValue = value }
    #expect(seen.values == [20, 26, 20])
    _ = subscription
  }
}
