import Foundation
import Testing

@testable import StateGraph

@Suite("withGraphTracking and onChange")
struct TrackingTests {
  @Test func onChangeDeliversTheCurrentValueThenEachChange() {
    let count = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      count.onChange { seen.append($0) }
    }
    #expect(seen.values == [0])
    count.wrappedValue = 1
    count.wrappedValue = 2
    #expect(seen.values == [0, 1, 2])
    _ = subscription
  }

  @Test func onChangeOnAComputedSkipsEqualValues() {
    let count = Stored(wrappedValue: 0)
    let isEven = Computed { _ in count.wrappedValue % 2 == 0 }
    let seen = Recorder<Bool>()
    let subscription = withGraphTracking {
      isEven.onChange { seen.append($0) }
    }
    count.wrappedValue = 2  // still even: cut off, no call
    count.wrappedValue = 3
    count.wrappedValue = 5
    count.wrappedValue = 6
    #expect(seen.values == [true, false, true])
    _ = subscription
  }

  @Test func anInlineComputedIsKeptAliveByTheSubscription() {
    let stock = Stored(wrappedValue: 10)
    let inCart = Stored(wrappedValue: 0)
    let seen = Recorder<Bool>()
    var subscription: StateGraphSubscription? = withGraphTracking {
      Computed { _ in stock.wrappedValue > inCart.wrappedValue }
        .onChange { seen.append($0) }
    }
    inCart.wrappedValue = 10
    inCart.wrappedValue = 3
    #expect(seen.values == [true, false, true])
    subscription = nil
    inCart.wrappedValue = 20
    #expect(seen.values == [true, false, true])
    _ = subscription
  }

  @Test func bothSeedSpellingsAcceptTheSubscription() {
    let node = Stored(wrappedValue: 1)
    var first: AnyCancellable?
    var second: StateGraphSubscription?
    first = withGraphTracking { node.onChange { _ in } }
    second = withGraphTracking { node.onChange { _ in } }
    #expect(first != nil && second != nil)
  }

  @Test func aFilterDecidesWhatIsDelivered() {
    let level = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      level.onChange(filter: ComparisonFilter { old, new in abs(new - old) >= 10 }) { seen.append($0) }
    }
    for value in [3, 9, 12, 15, 30] { level.wrappedValue = value }
    #expect(seen.values == [0, 12, 30])
    _ = subscription
  }

  @Test func aBatchDeliversOnceWithTheFinalValue() {
    let a = Stored(wrappedValue: 0)
    let b = Stored(wrappedValue: 0)
    let sum = Computed { _ in a.wrappedValue + b.wrappedValue }
    let sums = Recorder<Int>()
    let aValues = Recorder<Int>()
    let subscription = withGraphTracking {
      sum.onChange { sums.append($0) }
      a.onChange { aValues.append($0) }
    }
    withGraphBatch {
      for i in 1...100 { a.wrappedValue = i }
      b.wrappedValue = 1
    }
    #expect(sums.values == [0, 101])
    #expect(aValues.values == [0, 100])
    _ = subscription
  }

  @Test func aRolledBackBatchNotifiesNobody() {
    struct Failure: Error {}
    let a = Stored(wrappedValue: 1)
    let doubled = Computed { _ in a.wrappedValue * 2 }
    let seen = Recorder<Int>()
    let groupRuns = Counter()
    let subscription = withGraphTracking {
      doubled.onChange { seen.append($0) }
      withGraphTrackingGroup {
        groupRuns.tick()
        _ = a.wrappedValue
      }
    }
    try? withGraphBatch {
      a.wrappedValue = 5
      _ = doubled.wrappedValue  // recomputed inside, then rolled back
      throw Failure()
    }
    #expect(a.wrappedValue == 1)
    #expect(seen.values == [2])
    #expect(groupRuns.value == 1)
    _ = subscription
  }

  @Test func cancelAndReleaseStopHandlers() {
    let node = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking { node.onChange { seen.append($0) } }
    node.wrappedValue = 1
    subscription.cancel()
    node.wrappedValue = 2
    subscription.cancel()  // idempotent
    #expect(seen.values == [0, 1])
  }

  @Test func aHandlerMayCancelItsOwnSubscription() {
    final class Holder: @unchecked Sendable { var subscription: StateGraphSubscription? }
    let holder = Holder()
    let node = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    holder.subscription = withGraphTracking {
      node.onChange { value in
        seen.append(value)
        if value == 2 { holder.subscription = nil }
      }
    }
    for i in 1...4 { node.wrappedValue = i }
    #expect(seen.values == [0, 1, 2])
  }

  @Test func aHandlerMayWriteAndItsEffectsFollowInOrder() {
    let celsius = Stored(wrappedValue: 0)
    let fahrenheit = Stored(wrappedValue: 32)
    let log = Recorder<String>()
    let subscription = withGraphTracking {
      celsius.onChange { c in
        log.append("c=\(c)")
        fahrenheit.wrappedValue = c * 9 / 5 + 32
        log.append("wrote f")
      }
      fahrenheit.onChange { f in log.append("f=\(f)") }
    }
    celsius.wrappedValue = 100
    #expect(log.values == ["c=0", "wrote f", "f=32", "c=100", "wrote f", "f=212"])
    _ = subscription
  }

  /// A handler's own write does not call it again (docs/core-protocol.md,
  /// "Effects"); writes from elsewhere do.
  @Test func aHandlerWritingItsOwnSourceIsNotCalledAgainForIt() {
    let value = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      value.onChange { v in
        seen.append(v)
        if v < 5 { value.wrappedValue = v + 1 }
      }
    }
    #expect(seen.values == [0])
    #expect(value.wrappedValue == 1)
    value.wrappedValue = 3
    #expect(seen.values == [0, 3])
    #expect(value.wrappedValue == 4)
    _ = subscription
  }

  /// Freed "eventually": see LifetimeTests (a parallel whole-graph snapshot).
  @Test func releasedSubscriptionsFreeTheirHandlersAndComputeds() async {
    let tracker = LifetimeTracker()
    let source = Stored(wrappedValue: 0)
    var subscription: StateGraphSubscription? = withGraphTracking {
      tracker.track(Computed { _ in source.wrappedValue * 2 }).onChange { _ in }
      withGraphTrackingMap({ source.wrappedValue + 1 }) { _ in }
    }
    source.wrappedValue = 1
    #expect(tracker.aliveCount == 1)
    subscription = nil
    #expect(await eventually { tracker.aliveCount == 0 })
    _ = subscription
  }

  @Test func theSeedsStoreViewModelPrintsTheDocumentedLines() {
    final class StoreViewModel: @unchecked Sendable {
      let stockLevel = Stored(name: "stockLevel", wrappedValue: 10)
      let itemsInCart = Stored(name: "itemsInCart", wrappedValue: 0)
    }
    let viewModel = StoreViewModel()
    let output = Recorder<String>()
    var availabilitySubscription: StateGraphSubscription? = withGraphTracking {
      Computed { _ in viewModel.stockLevel.wrappedValue > viewModel.itemsInCart.wrappedValue }
        .onChange { isAvailable in
          output.append(
            isAvailable
              ? "✅ Product is available to add to cart."
              : "⚠️ Product is out of stock or cart limit reached.")
        }
      viewModel.stockLevel.onChange { output.append("📦 Stock level updated: \($0)") }
      viewModel.itemsInCart.onChange { output.append("🛒 Items in cart updated: \($0)") }
    }
    let initial = output.values
    viewModel.itemsInCart.wrappedValue = 1
    #expect(
      Array(output.values.dropFirst(initial.count)) == ["🛒 Items in cart updated: 1"])
    let beforeStockOut = output.count
    viewModel.stockLevel.wrappedValue = 0
    #expect(
      Array(output.values.dropFirst(beforeStockOut)) == [
        "📦 Stock level updated: 0", "⚠️ Product is out of stock or cart limit reached.",
      ])
    availabilitySubscription = nil
    viewModel.stockLevel.wrappedValue = 5
    #expect(output.count == beforeStockOut + 2)
    _ = availabilitySubscription
  }
}

@Suite("withGraphTrackingGroup")
struct TrackingGroupTests {
  @Test func aGroupRunsNowAndTracksOnlyWhatItsLastRunRead() async {
    let counter = Stored(wrappedValue: 0)
    let featureEnabled = Stored(wrappedValue: false)
    let featureData = Stored(wrappedValue: "data")
    let log = Recorder<String>()
    let subscription = withGraphTracking {
      withGraphTrackingGroup {
        log.append("Count: \(counter.wrappedValue)")
        if featureEnabled.wrappedValue {
          log.append("Feature data: \(featureData.wrappedValue)")
        }
      }
    }
    #expect(log.values == ["Count: 0"])
    featureData.wrappedValue = "ignored"  // not read while disabled
    await subscription.settled()
    #expect(log.count == 1)
    featureEnabled.wrappedValue = true
    await subscription.settled()
    #expect(log.values.suffix(2) == ["Count: 0", "Feature data: ignored"])
    featureData.wrappedValue = "fresh"
    await subscription.settled()
    #expect(log.values.suffix(2) == ["Count: 0", "Feature data: fresh"])
    counter.wrappedValue = 1
    await subscription.settled()
    #expect(log.values.suffix(2) == ["Count: 1", "Feature data: fresh"])
    #expect(log.count == 7)
    _ = subscription
  }

  /// The change to `outer` tears the inner group down at once; the outer
  /// group's re-run, which also covers the later write to `inner`, creates a
  /// new one that reads the latest value.
  @Test func nestedGroupsAreRecreatedWhenTheParentRuns() async {
    let outer = Stored(wrappedValue: 0)
    let inner = Stored(wrappedValue: 0)
    let outerRuns = Counter()
    let innerRuns = Recorder<String>()
    let subscription = withGraphTracking {
      withGraphTrackingGroup {
        outerRuns.tick()
        let generation = outer.wrappedValue
        withGraphTrackingGroup {
          innerRuns.append("g\(generation):\(inner.wrappedValue)")
        }
      }
    }
    inner.wrappedValue = 1
    await subscription.settled()
    #expect(outerRuns.value == 1)
    #expect(innerRuns.values == ["g0:0", "g0:1"])
    outer.wrappedValue = 1  // tears the inner group down
    inner.wrappedValue = 2  // reaches no inner group
    await subscription.settled()
    #expect(outerRuns.value == 2)
    #expect(innerRuns.values == ["g0:0", "g0:1", "g1:2"])
    _ = subscription
  }

  @Test func withGraphTrackingMapDeliversDistinctProjections() async {
    let items = Stored(wrappedValue: [1, 2, 3])
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingMap({ items.wrappedValue.count }) { seen.append($0) }
    }
    items.wrappedValue = [4, 5, 6]  // same count: not delivered
    await subscription.settled()
    items.wrappedValue = [1]
    await subscription.settled()
    #expect(seen.values == [3, 1])
    _ = subscription
  }
}

@Suite("observe() and actors")
struct AsyncTrackingTests {
  @Test(.timeLimit(.minutes(1))) func observeYieldsTheCurrentValueThenChanges() async {
    let node = Stored(wrappedValue: 0)
    let stream = node.observe()
    var iterator = stream.makeAsyncIterator()
    #expect(await iterator.next() == 0)
    node.wrappedValue = 1
    node.wrappedValue = 1
    node.wrappedValue = 2
    #expect(await iterator.next() == 1)
    #expect(await iterator.next() == 2)
  }

  @MainActor @Test(.timeLimit(.minutes(1)))
  func aMainActorHandlerRunsOnTheMainActor() async {
    let node = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      node.onChange { value in
        MainActor.assertIsolated()  // stops the test process if not
        seen.append(value)
      }
    }
    await Task.detached { node.wrappedValue = 1 }.value  // written off the main actor
    #expect(await eventually { seen.count == 2 })
    #expect(seen.values == [0, 1])
    _ = subscription
  }

  actor Collector {
    var values: [Int] = []
    var subscription: StateGraphSubscription?
    func start(_ node: Stored<Int>) {
      subscription = withGraphTracking {
        node.onChange { value in
          self.assertIsolated()
          self.values.append(value)
        }
      }
    }
  }

  actor GroupCollector {
    var seen: [Int] = []
    var subscription: StateGraphSubscription?
    func start(_ node: Stored<Int>) {
      subscription = withGraphTracking {
        withGraphTrackingGroup {
          self.assertIsolated()
          self.seen.append(node.wrappedValue)
        }
      }
    }
  }

  /// A write off the actor makes the group retire and start again on its
  /// actor; the new group tracks what its runs read, so later writes reach it.
  @Test(.timeLimit(.minutes(1))) func aGroupOnAnActorRunsAgainOnItsActor() async {
    let node = Stored(wrappedValue: 0)
    let collector = GroupCollector()
    await collector.start(node)
    #expect(await collector.seen == [0])  // the first run: at once, on the actor
    var seen: [Int] = []
    for value in 1...2 {
      node.wrappedValue = value  // from the test's task, not the actor
      for _ in 0..<1000 where seen.last != value {  // hops land asynchronously
        seen = await collector.seen
        try? await Task.sleep(for: .milliseconds(5))
      }
    }
    #expect(seen == [0, 1, 2])
  }

  @Test(.timeLimit(.minutes(1))) func anActorHandlerRunsOnItsActor() async {
    let node = Stored(wrappedValue: 0)
    let collector = Collector()
    await collector.start(node)
    node.wrappedValue = 1
    node.wrappedValue = 2
    var values: [Int] = []
    for _ in 0..<1000 where values.count < 3 {  // hops land asynchronously
      values = await collector.values
      try? await Task.sleep(for: .milliseconds(5))
    }
    #expect(values == [0, 1, 2])
  }
}
