import Foundation
import Testing

@testable import StateGraph

/// `withGraphTrackingMap` in all its spellings (upstream's included): a
/// tracking group that projects, filters and delivers.
@Suite("withGraphTrackingMap")
struct TrackingMapTests {
  @Test func tracksWhatTheLastProjectionRead() async {
    let useFullName = Stored(wrappedValue: true)
    let first = Stored(wrappedValue: "John")
    let last = Stored(wrappedValue: "Doe")
    let nickname = Stored(wrappedValue: "Johnny")
    let projections = Counter()
    let seen = Recorder<String>()
    let subscription = withGraphTracking {
      withGraphTrackingMap {
        projections.tick()
        return useFullName.wrappedValue ? "\(first.wrappedValue) \(last.wrappedValue)" : nickname.wrappedValue
      } onChange: { seen.append($0) }
    }
    first.wrappedValue = "Jane"
    await subscription.settled()
    nickname.wrappedValue = "JJ"  // not read by the last projection
    await subscription.settled()
    useFullName.wrappedValue = false
    await subscription.settled()
    first.wrappedValue = "Bob"  // not read any more
    await subscription.settled()
    nickname.wrappedValue = "Jay"
    await subscription.settled()
    #expect(seen.values == ["John Doe", "Jane Doe", "JJ", "Jay"])
    #expect(projections.value == 4)
    _ = subscription
  }

  @Test func aCustomFilterDecidesWhatReachesTheHandler() async {
    struct Threshold: Filter {
      var last: Int?
      mutating func send(value: Int) -> Int? {
        if let last, abs(value - last) < 5 { return nil }
        last = value
        return value
      }
    }
    let value = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingMap({ value.wrappedValue }, filter: Threshold()) { seen.append($0) }
    }
    for next in [3, 6, 8, 15] {
      value.wrappedValue = next
      await subscription.settled()
    }
    #expect(seen.values == [0, 6, 15])
    _ = subscription
  }

  @Test func passthroughDeliversEqualProjectionsDistinctDoesNot() async {
    let items = Stored(wrappedValue: [1, 2])
    let everyRun = Recorder<Int>()
    let distinct = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingMap({ items.wrappedValue.count }, filter: PassthroughFilter()) {
        everyRun.append($0)
      }
      withGraphTrackingMap({ items.wrappedValue.count }) { distinct.append($0) }
    }
    items.wrappedValue = [3, 4]
    await subscription.settled()
    items.wrappedValue = [5]
    await subscription.settled()
    #expect(everyRun.values == [2, 2, 1])
    #expect(distinct.values == [2, 1])
    _ = subscription
  }

  @Test func withoutInitialTheFirstValueOnlySeedsTheFilter() async {
    let value = Stored(wrappedValue: 0)
    let distinct = Recorder<Int>()
    let passthrough = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingMap({ value.wrappedValue % 10 }, initial: false) { distinct.append($0) }
      withGraphTrackingMap({ value.wrappedValue }, filter: PassthroughFilter(), initial: false) {
        passthrough.append($0)
      }
    }
    #expect(distinct.values.isEmpty && passthrough.values.isEmpty)
    value.wrappedValue = 10  // projects 0 again: the seeded filter holds it back
    await subscription.settled()
    value.wrappedValue = 11
    await subscription.settled()
    #expect(distinct.values == [1])
    #expect(passthrough.values == [10, 11])
    _ = subscription
  }

  @Test func fromADependencyHeldWeaklyStopsOnceItIsGone() async {
    final class ViewModel: Sendable {
      let count = Stored(wrappedValue: 0)
    }
    var viewModel: ViewModel? = ViewModel()
    weak let weakModel = viewModel
    let count = viewModel!.count
    let maps = Counter()
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingMap(from: viewModel!, map: { model in
        maps.tick()
        return model.count.wrappedValue
      }) { seen.append($0) }
    }
    count.wrappedValue = 1
    await subscription.settled()
    viewModel = nil
    #expect(weakModel == nil)  // the map does not keep it alive
    count.wrappedValue = 2  // one run finds it gone and reads nothing
    await subscription.settled()
    count.wrappedValue = 3  // so nothing runs any more
    await subscription.settled()
    #expect(seen.values == [0, 1])
    #expect(maps.value == 2)
    _ = subscription
  }

  @Test func fromADependencyWithAFilter() async {
    final class Model: Sendable { let value = Stored(wrappedValue: 1) }
    let model = Model()
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingMap(from: model, map: { $0.value.wrappedValue / 2 }, filter: PassthroughFilter()) {
        seen.append($0)
      }
    }
    model.value.wrappedValue = 0  // projects 0 again, delivered all the same
    await subscription.settled()
    #expect(seen.values == [0, 0])
    _ = subscription
  }

  /// Registered on an actor, the closures may capture state that is not
  /// `Sendable`: they run with the caller's isolation, one run at a time
  /// (outside any actor they are `@Sendable`; see SendableCheckingTests).
  @Test @MainActor func closuresOnAnActorMayCaptureNonSendableState() async {
    final class Tally { var sum = 0 }  // not Sendable
    let tally = Tally()
    let value = Stored(wrappedValue: 1)
    let subscription = withGraphTracking {
      withGraphTrackingMap({ value.wrappedValue * 2 }, onChange: { tally.sum += $0 })
    }
    value.wrappedValue = 2
    await subscription.settled()
    value.wrappedValue = 3
    await subscription.settled()
    #expect(tally.sum == 2 + 4 + 6)
    _ = subscription
  }

  @Test func isolationComesLastAsUpstreamSpellsIt() async {
    let value = Stored(wrappedValue: 0)
    let runs = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingGroup({ runs.append(value.wrappedValue) }, isolation: nil)
    }
    value.wrappedValue = 1
    await subscription.settled()
    #expect(runs.values == [0, 1])
    _ = subscription
  }

  /// Writes made off the main actor reach a main-actor map on the main
  /// actor, merged: one run sees every write before it. (The writes happen
  /// while the main actor waits for them, so none can run in between.)
  /// Writes on the main actor are merged the same way: the run comes after
  /// the writer's code, never inside it.
  @Test @MainActor func aMainActorMapMergesWritesMadeElsewhere() async {
    let value = Stored(wrappedValue: 0)
    var seen: [Int] = []  // main-actor state, no lock
    let subscription = withGraphTracking {
      withGraphTrackingMap({ value.wrappedValue }) { seen.append($0) }
    }
    #expect(onAnotherThread { for next in 1...5 { value.wrappedValue = next } })
    #expect(seen == [0])
    await subscription.settled()
    #expect(seen == [0, 5])
    value.wrappedValue = 6  // on the main actor: scheduled all the same
    value.wrappedValue = 7
    #expect(seen == [0, 5])
    await subscription.settled()
    #expect(seen == [0, 5, 7])
    _ = subscription
  }
}
