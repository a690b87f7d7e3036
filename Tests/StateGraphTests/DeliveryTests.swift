import Dispatch
import Foundation
import Testing

@testable import StateGraph

// Delivery off the writer's thread: "already on the handler's actor" counts
// as current; a group's re-run disposes what the previous run created;
// deliveries keep their order; none starts after cancel. Each behaviour on the main actor, on a custom actor and with no
// isolation; the races are repeated for thousands of rounds.

/// A boolean any thread may set and read.
private final class Flag: @unchecked Sendable {
  private let lock = NSLock()
  private var isSet = false
  var value: Bool { lock.withLock { isSet } }
  func set() { lock.withLock { isSet = true } }
}

/// Writes 1...count to `node` from `threads` tasks at once, in order: the
/// writes are serialised by a lock, each one's handlers queued before the next.
private func writeInOrder(_ node: Stored<Int>, count: Int, threads: Int = 3) async {
  let lock = NSLock()
  nonisolated(unsafe) var next = 1
  await withTaskGroup(of: Void.self) { group in
    for _ in 0..<threads {
      group.addTask {
        while lock.withLock({
          guard next <= count else { return false }
          node.wrappedValue = next
          next += 1
          return true
        }) {}
      }
    }
  }
}

/// Registers handlers on itself, a custom actor.
private actor Inbox {
  var values: [Int] = []
  var subscription: StateGraphSubscription?
  var violations = 0
  var isCancelled = false

  /// What was delivered by the time registration returned.
  func subscribe(_ node: Stored<Int>) -> [Int] {
    subscription = withGraphTracking {
      node.onChange { value in
        self.assertIsolated()
        if self.isCancelled { self.violations += 1 }
        self.values.append(value)
      }
    }
    return values
  }

  /// What was delivered by the time the write returned.
  func write(_ node: Stored<Int>, _ value: Int) -> [Int] {
    node.wrappedValue = value
    return values
  }

  /// Cancels (or releases) on the actor: no run is in progress here now,
  /// so any run from here on is one that started after the cancel.
  func stop(releasing: Bool) {
    if releasing { subscription = nil } else { subscription?.cancel() }
    isCancelled = true
  }
}

/// A group on a custom actor that reads `a` and registers an inner handler on `b`.
private actor GroupHost {
  var runs = 0
  var inner: [Int] = []
  var subscription: StateGraphSubscription?

  func start(a: Stored<Int>, b: Stored<Int>, tracker: LifetimeTracker) {
    subscription = withGraphTracking {
      withGraphTrackingGroup {
        self.assertIsolated()
        self.runs += 1
        _ = a.wrappedValue
        tracker.track(Computed { _ in b.wrappedValue }).onChange { value in
          self.assertIsolated()
          self.inner.append(value)
        }
      }
    }
  }

  func write(_ node: Stored<Int>, _ value: Int) { node.wrappedValue = value }

  /// Cancels on the actor and returns the runs so far: none may follow.
  func stop() -> Int {
    subscription?.cancel()
    return runs
  }
}

/// A handler on a custom actor that writes its own source until it reaches 5.
private actor Settler {
  var seen: [Int] = []
  var subscription: StateGraphSubscription?

  func start(_ node: Stored<Int>) -> [Int] {
    subscription = withGraphTracking {
      node.onChange { value in
        self.seen.append(value)
        if value < 5 { node.wrappedValue = value + 1 }
      }
    }
    return seen
  }
}

@Suite("Delivery: on the handler's actor")
struct DeliveryCurrentTests {
  /// A handler's own write made inside the run that delivered to it (inline,
  /// on its actor) does not call it again (the core's rule for effects). A
  /// delivery that came by a hop runs after the write that caused it, so the
  /// handler's writes there are new writes, delivered after it returns, in
  /// order, never recursively.
  @Test(.timeLimit(.minutes(1))) func aHandlerWritingOnItsActorIsDeliveredAfterItInOrder() async {
    let node = Stored(wrappedValue: 0)
    let settler = Settler()
    #expect(await settler.start(node) == [0])
    #expect(node.wrappedValue == 1)
    node.wrappedValue = 2  // off the actor: a hop
    #expect(await eventually { await settler.seen.count == 5 })
    #expect(await settler.seen == [0, 2, 3, 4, 5])
    #expect(node.wrappedValue == 5)
  }

  @Test func aWriteOnTheHandlersActorIsDeliveredBeforeItReturns() async {
    let node = Stored(wrappedValue: 0)
    let inbox = Inbox()
    #expect(await inbox.subscribe(node) == [0])
    #expect(await inbox.write(node, 1) == [0, 1])
    #expect(await inbox.write(node, 2) == [0, 1, 2])
  }

  @MainActor @Test func aWriteOnTheMainActorIsDeliveredBeforeItReturns() {
    let node = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      node.onChange { value in
        MainActor.assertIsolated()
        seen.append(value)
      }
    }
    #expect(seen.values == [0])
    node.wrappedValue = 1
    #expect(seen.values == [0, 1])
    _ = subscription
  }

  @Test func aHandlerWithoutIsolationRunsOnTheWritingThread() async {
    let node = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking { node.onChange(isolation: nil) { seen.append($0) } }
    await Task.detached {
      node.wrappedValue = 1
      #expect(seen.values == [0, 1])
    }.value
    _ = subscription
  }

  /// Ten writes of `a` from off the actor restart the group ten times; each
  /// restart disposes the inner handler and computed of the run before, so
  /// one write of `b` reaches one handler, and one computed is alive.
  @Test(.timeLimit(.minutes(1))) func aGroupOnAnActorDisposesWhatItsLastRunCreated() async {
    let a = Stored(wrappedValue: 0)
    let b = Stored(wrappedValue: 0)
    let tracker = LifetimeTracker()
    let host = GroupHost()
    await host.start(a: a, b: b, tracker: tracker)
    #expect(await host.runs == 1)
    for value in 1...10 {
      a.wrappedValue = value  // off the actor: a restart, later, on it
      #expect(await eventually { await host.runs == value + 1 })
    }
    b.wrappedValue = 1
    b.wrappedValue = 2
    #expect(await eventually { await host.inner.last == 2 })
    #expect(await host.inner == Array(repeating: 0, count: 11) + [1, 2])
    #expect(await host.runs == 11)
    #expect(await eventually { tracker.aliveCount == 1 })
    // On the actor too, a write schedules the re-run: it comes after the
    // writing code, never inside it.
    await host.write(a, 11)
    #expect(await eventually { await host.runs == 12 })
    #expect(await host.inner == Array(repeating: 0, count: 11) + [1, 2, 2])
    #expect(await eventually { tracker.aliveCount == 1 })
  }

  @MainActor @Test(.timeLimit(.minutes(1))) func aGroupOnTheMainActorDisposesWhatItsLastRunCreated()
    async
  {
    let a = Stored(wrappedValue: 0)
    let b = Stored(wrappedValue: 0)
    let runs = Counter()
    let inner = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingGroup {
        MainActor.assertIsolated()
        runs.tick()
        _ = a.wrappedValue
        b.onChange { value in
          MainActor.assertIsolated()
          inner.append(value)
        }
      }
    }
    for value in 1...10 {
      await Task.detached { a.wrappedValue = value }.value
      #expect(await eventually { runs.value == value + 1 })
    }
    await Task.detached {
      b.wrappedValue = 1
      b.wrappedValue = 2
    }.value
    #expect(await eventually { inner.values.last == 2 })
    #expect(inner.values == Array(repeating: 0, count: 11) + [1, 2])
    a.wrappedValue = 11  // on the main actor: scheduled all the same
    #expect(runs.value == 11)
    await subscription.settled()
    #expect(runs.value == 12)
    #expect(inner.values == Array(repeating: 0, count: 11) + [1, 2, 2])
    _ = subscription
  }
}

@Suite("Delivery: order")
struct DeliveryOrderStressTests {
  static let rounds = 2_000
  static let writes = 50

  @Test(.timeLimit(.minutes(5))) func actorDeliveriesKeepTheWriteOrder() async {
    for _ in 0..<Self.rounds {
      let node = Stored(wrappedValue: 0)
      let inbox = Inbox()
      _ = await inbox.subscribe(node)
      await writeInOrder(node, count: Self.writes)
      let arrived = await eventually { await inbox.values.last == Self.writes }
      #expect(arrived)
      #expect(await inbox.values == Array(0...Self.writes))
      if !arrived { return }
    }
  }

  @MainActor @Test(.timeLimit(.minutes(5))) func mainActorDeliveriesKeepTheWriteOrder() async {
    for _ in 0..<Self.rounds {
      let node = Stored(wrappedValue: 0)
      let seen = Recorder<Int>()
      let subscription = withGraphTracking { node.onChange { seen.append($0) } }
      await writeInOrder(node, count: Self.writes)
      let arrived = await eventually { seen.values.last == Self.writes }
      #expect(arrived)
      #expect(seen.values == Array(0...Self.writes))
      _ = subscription
      if !arrived { return }
    }
  }

  @Test(.timeLimit(.minutes(5))) func deliveriesWithoutIsolationKeepTheWriteOrder() async {
    for _ in 0..<Self.rounds {
      let node = Stored(wrappedValue: 0)
      let seen = Recorder<Int>()
      let subscription = withGraphTracking { node.onChange(isolation: nil) { seen.append($0) } }
      await writeInOrder(node, count: Self.writes)
      #expect(seen.values == Array(0...Self.writes))
      _ = subscription
    }
  }

  /// Writers that do not take turns: whatever the interleaving, no value is
  /// delivered twice, and the last one delivered is the node's final value.
  @Test(.timeLimit(.minutes(5))) func racingWritersEndOnTheFinalValue() async {
    for _ in 0..<Self.rounds {
      let node = Stored(wrappedValue: 0)
      let counter = NSLock()
      nonisolated(unsafe) var next = 0
      let inbox = Inbox()
      _ = await inbox.subscribe(node)
      await withTaskGroup(of: Void.self) { group in
        for _ in 0..<3 {
          group.addTask {
            for _ in 0..<10 {
              let value = counter.withLock {
                next += 1
                return next
              }
              node.wrappedValue = value  // may land after a larger one
            }
          }
        }
      }
      let final = node.wrappedValue
      let arrived = await eventually { await inbox.values.last == final }
      #expect(arrived)
      let values = await inbox.values
      #expect(Set(values).count == values.count)  // each value once
      if !arrived { return }
    }
  }
}

@Suite("Delivery: cancellation")
struct DeliveryCancellationStressTests {
  static let rounds = 2_000

  /// Writes from off the actor queue deliveries; a cancel on the actor
  /// (no run in progress there) must stop every one not yet started.
  @Test(.timeLimit(.minutes(5)), arguments: [false, true])
  func nothingRunsOnAnActorAfterCancelReturns(releasing: Bool) async {
    var inboxes: [Inbox] = []
    for round in 0..<Self.rounds {
      let node = Stored(wrappedValue: 0)
      let inbox = Inbox()
      inboxes.append(inbox)
      _ = await inbox.subscribe(node)
      let writer = Task.detached {
        for value in 1...20 { node.wrappedValue = value }
      }
      if round % 2 == 0 { await writer.value }  // all queued, or racing the cancel
      await inbox.stop(releasing: releasing)
      await writer.value
    }
    // Give deliveries still on their way a turn of each actor, then count.
    for _ in 0..<10 { await Task.yield() }
    for inbox in inboxes { _ = await inbox.values }
    var violations = 0
    for inbox in inboxes { violations += await inbox.violations }
    #expect(violations == 0)
  }

  @MainActor @Test(.timeLimit(.minutes(5)), arguments: [false, true])
  func nothingRunsOnTheMainActorAfterCancelReturns(releasing: Bool) async {
    let violations = Counter()
    for round in 0..<Self.rounds {
      let node = Stored(wrappedValue: 0)
      let isCancelled = Flag()
      var subscription: StateGraphSubscription? = withGraphTracking {
        node.onChange { _ in
          MainActor.assertIsolated()
          if isCancelled.value { violations.tick() }
        }
      }
      let writer = Task.detached {
        for value in 1...20 { node.wrappedValue = value }
      }
      if round % 2 == 0 { await writer.value }
      if releasing { subscription = nil } else { subscription?.cancel() }
      isCancelled.set()  // on the main actor: no run is in progress here
      await writer.value
    }
    for _ in 0..<100 { await Task.yield() }
    #expect(violations.value == 0)
  }

  /// A group's re-run already queued for its actor when the subscription is
  /// cancelled there never runs, nor do the inner handlers of its last run.
  @Test(.timeLimit(.minutes(5))) func aCancelledGroupNeverRunsAgain() async {
    var late = 0
    for round in 0..<Self.rounds / 4 {
      let a = Stored(wrappedValue: 0)
      let b = Stored(wrappedValue: 0)
      let host = GroupHost()
      await host.start(a: a, b: b, tracker: LifetimeTracker())
      let writer = Task.detached {
        for value in 1...5 {
          a.wrappedValue = value
          b.wrappedValue = value
        }
      }
      if round % 2 == 0 { await writer.value }
      let runs = await host.stop()
      let inner = await host.inner.count
      await writer.value
      a.wrappedValue = 100
      b.wrappedValue = 100
      _ = await host.runs  // a turn of the actor
      late += await host.runs - runs + host.inner.count - inner
    }
    #expect(late == 0)
  }

  /// Without isolation handlers run on the writing thread; a handler that
  /// cancels another subscription stops it before its turn in the same write.
  @Test func aHandlerCancellingAnotherStopsItWithinTheSameWrite() async {
    final class Holder: @unchecked Sendable { var other: StateGraphSubscription? }
    let holder = Holder()
    let node = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    let first = withGraphTracking {
      node.onChange(isolation: nil) { value in if value == 3 { holder.other?.cancel() } }
    }
    holder.other = withGraphTracking { node.onChange(isolation: nil) { seen.append($0) } }
    await Task.detached { for value in 1...5 { node.wrappedValue = value } }.value
    #expect(seen.values == [0, 1, 2])
    _ = first
  }

  /// `cancelAndWait()` returns only after a run already in progress on
  /// another actor has returned; nothing runs after it.
  @Test(.timeLimit(.minutes(5))) func cancelAndWaitWaitsForARunInProgress() async {
    for _ in 0..<200 {
      let node = Stored(wrappedValue: 0)
      let log = Recorder<String>()
      let entered = DispatchSemaphore(value: 0)
      let release = DispatchSemaphore(value: 0)
      let subscription = withGraphTracking {
        node.onChange(isolation: nil) { value in
          guard value == 1 else { return }
          log.append("entered")
          entered.signal()
          _ = release.wait(timeout: .now() + 10)
          log.append("returned")
        }
      }
      let writer = Thread { node.wrappedValue = 1 }
      writer.start()
      #expect(entered.wait(timeout: .now() + 10) == .success)
      let canceller = Task.detached {
        await subscription.cancelAndWait()
        log.append("cancelled")
      }
      for _ in 0..<10 { await Task.yield() }
      release.signal()
      await canceller.value
      node.wrappedValue = 2
      #expect(log.values == ["entered", "returned", "cancelled"])
    }
  }

  /// Deliveries hopped to an actor that are still queued when
  /// `cancelAndWait()` is called from elsewhere never run.
  @Test(.timeLimit(.minutes(5))) func nothingRunsAfterCancelAndWaitFromAnotherThread() async {
    var late = 0
    for _ in 0..<Self.rounds {
      let node = Stored(wrappedValue: 0)
      let ran = Counter()
      let isCancelled = Flag()
      let inbox = Inbox()
      let subscription = await inbox.run(node, ran: ran, isCancelled: isCancelled)
      let writer = Task.detached { for value in 1...20 { node.wrappedValue = value } }
      await subscription.cancelAndWait()
      isCancelled.set()
      await writer.value
      _ = await inbox.values  // a turn of the actor: queued drains come before
      late += ran.value
    }
    #expect(late == 0)
  }
}

extension Inbox {
  /// A second handler, counting runs that begin once `isCancelled` is set.
  fileprivate func run(_ node: Stored<Int>, ran: Counter, isCancelled: Flag) -> StateGraphSubscription {
    withGraphTracking {
      node.onChange { _ in
        self.assertIsolated()
        if isCancelled.value { ran.tick() }
      }
    }
  }
}
