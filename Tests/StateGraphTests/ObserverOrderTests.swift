import Foundation
import StateGraphCore
import Testing

@testable import StateGraph

/// The observer rules the core enforces (docs/core-protocol.md, "Effects"):
/// owners before the groups they created, no re-entry from a handler's own
/// write, and writers that never wait for a running handler.
// Serialized: some tests hold a thread of the cooperative pool on purpose (an actor held,
// a cut-off check gated), and two of them at once would leave the pool (two threads on
// a 2-core machine) none to run the re-runs every test waits for.
@Suite("Observer order", .serialized)
struct ObserverOrderTests {
  /// The same with either delivery: a scheduled outer re-run is no later
  /// than the inner one, since the change that schedules it drops the inner
  /// group at once.
  @Test(arguments: [GraphDelivery.scheduled, .synchronous])
  func anOuterGroupRunsBeforeTheInnerGroupItCreated(delivery: GraphDelivery) async {
    let a = Stored(wrappedValue: 1)
    let positive = Computed { _ in a.wrappedValue > 0 }
    let outerRuns = Counter()
    let innerSaw = Recorder<Int>()
    let subscription = withGraphTracking(delivery: delivery) {
      withGraphTrackingGroup {
        outerRuns.tick()
        if positive.wrappedValue {
          withGraphTrackingGroup { innerSaw.append(a.wrappedValue) }
        }
      }
    }
    #expect(outerRuns.value == 1)
    #expect(innerSaw.values == [1])

    a.wrappedValue = 5  // `positive` is unchanged: the outer group is cut off
    await subscription.settled()
    #expect(outerRuns.value == 1)
    #expect(innerSaw.values == [1, 5])

    a.wrappedValue = 0  // reaches both; the outer one runs first and drops the inner
    await subscription.settled()
    #expect(outerRuns.value == 2)
    #expect(innerSaw.values == [1, 5])  // never saw 0

    a.wrappedValue = 3  // a new inner group, run once when created
    await subscription.settled()
    #expect(outerRuns.value == 3)
    #expect(innerSaw.values == [1, 5, 3])
    _ = subscription
  }

  /// The inner group's scheduled re-run asked for by the same change starts
  /// only once the outer group has dealt with that change (and here dropped
  /// it). The outer group's cut-off check is held up until the inner group
  /// has seen 0 or half a second has passed, so an inner re-run that starts
  /// early is caught every time.
  @Test func aScheduledInnerGroupWaitsUntilTheOuterGroupHasSeenTheChange() async {
    for _ in 0..<3 {
      let a = Stored(wrappedValue: 1)
      let innerSawZero = DispatchSemaphore(value: 0)
      let positive = Computed { _ in
        let value = a.wrappedValue
        if value == 0 { _ = innerSawZero.wait(timeout: .now() + .milliseconds(500)) }
        return value > 0
      }
      let outerRuns = Counter()
      let innerSaw = Recorder<Int>()
      let subscription = withGraphTracking {
        withGraphTrackingGroup {
          outerRuns.tick()
          if positive.wrappedValue {
            withGraphTrackingGroup {
              let value = a.wrappedValue
              innerSaw.append(value)
              if value == 0 { innerSawZero.signal() }
            }
          }
        }
      }
      a.wrappedValue = 5  // the inner group re-runs alone
      await subscription.settled()
      #expect(innerSaw.values == [1, 5])

      a.wrappedValue = 0  // reaches both; the outer one drops the inner
      await subscription.settled()
      #expect(outerRuns.value == 2)
      #expect(innerSaw.values == [1, 5])
      subscription.cancel()
    }
  }

  /// The same with the outer group on an actor and the inner one on no
  /// actor (tasks of its own): the order does not depend on a shared executor.
  @Test func anInnerGroupOnAnotherExecutorWaitsUntilTheOuterGroupHasSeenTheChange() async {
    for _ in 0..<3 {
      let a = Stored(wrappedValue: 1)
      let innerSawZero = DispatchSemaphore(value: 0)
      let positive = Computed { _ in
        let value = a.wrappedValue
        if value == 0 { _ = innerSawZero.wait(timeout: .now() + .milliseconds(500)) }
        return value > 0
      }
      let host = OuterGroupHost()
      let innerSaw = Recorder<Int>()
      let subscription = await host.start(a: a, positive: positive) { value in
        innerSaw.append(value)
        if value == 0 { innerSawZero.signal() }
      }
      a.wrappedValue = 5  // the inner group re-runs alone
      await subscription.settled()
      #expect(innerSaw.values == [1, 5])

      a.wrappedValue = 0  // reaches both; the outer one drops the inner
      await subscription.settled()
      #expect(await host.runs == 2)
      #expect(innerSaw.values == [1, 5])
      subscription.cancel()
    }
  }

  /// The scenario of the test above, many times, without holding anything up.
  @Test func anInnerGroupDroppedByTheOuterOneNeverRunsAgain() async {
    for _ in 0..<200 {
      let a = Stored(wrappedValue: 1)
      let positive = Computed { _ in a.wrappedValue > 0 }
      let innerSaw = Recorder<Int>()
      let subscription = withGraphTracking {
        withGraphTrackingGroup {
          if positive.wrappedValue {
            withGraphTrackingGroup { innerSaw.append(a.wrappedValue) }
          }
        }
      }
      a.wrappedValue = 5
      await subscription.settled()
      a.wrappedValue = 0
      await subscription.settled()
      #expect(innerSaw.values == [1, 5])
      subscription.cancel()
    }
  }

  /// A write whose effects run where no Swift write call returns (a batch
  /// ended through the C API) keeps owners first all the same, and the
  /// inner group's re-run does not wait for a Swift write to return.
  @Test func aBatchEndedThroughTheCAPIKeepsOwnersFirst() async {
    let a = Stored(wrappedValue: 1)
    let positive = Computed { _ in a.wrappedValue > 0 }
    let outerRuns = Counter()
    let innerSaw = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingGroup {
        outerRuns.tick()
        if positive.wrappedValue {
          withGraphTrackingGroup { innerSaw.append(a.wrappedValue) }
        }
      }
    }
    sg_batch_begin()
    a.wrappedValue = 5  // the inner group re-runs alone, once the batch has ended
    #expect(sg_batch_end() == 0)
    #expect(await settles(subscription))
    #expect(innerSaw.values == [1, 5])

    sg_batch_begin()
    a.wrappedValue = 0  // reaches both; the outer one drops the inner
    #expect(sg_batch_end() == 0)
    #expect(await settles(subscription))
    #expect(outerRuns.value == 2)
    #expect(innerSaw.values == [1, 5])
    subscription.cancel()
  }

  /// Two writers on one owner: while one writer's thread is dealing with a
  /// change that reaches the outer group (held in its cut-off check), a
  /// second writer's change reaches the inner group alone. The second write
  /// returns at once, and the inner group, which the first change drops,
  /// never runs for it.
  @Test func aSecondWriterDoesNotOvertakeTheOwnersChange() async {
    let a = Stored(wrappedValue: 1)
    let b = Stored(wrappedValue: 0)
    let checking = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    let positive = Computed { _ in
      let value = a.wrappedValue
      if value == 0 {
        checking.signal()
        _ = gate.wait(seconds: 10)
      }
      return value > 0
    }
    let outerRuns = Counter()
    let innerSaw = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingGroup {
        outerRuns.tick()
        if positive.wrappedValue {
          withGraphTrackingGroup { innerSaw.append(b.wrappedValue) }
        }
      }
    }
    b.wrappedValue = 1  // the inner group restarts: a fresh effect, made outside the outer run
    #expect(await settles(subscription))
    #expect(innerSaw.values == [0, 1])

    let first = startThread { a.wrappedValue = 0 }
    #expect(await checking.waited(seconds: 10))
    #expect(onAnotherThread(timeout: .seconds(10)) { b.wrappedValue = 7 })  // never waits
    gate.signal()
    #expect(await first.waited(seconds: 10))
    #expect(await settles(subscription))
    #expect(outerRuns.value == 2)
    #expect(innerSaw.values == [0, 1])  // dropped before it saw 7
    subscription.cancel()
  }

  /// An inner group's re-run that reaches its actor while another thread is
  /// dealing with a change to the outer group leaves its first run to that
  /// thread: nothing waits (settling returns), and the outer group, which
  /// drops it, comes first.
  @Test func aRerunWhileTheOwnerIsBusyElsewhereIsLeftToTheOwnersThread() async {
    let a = Stored(wrappedValue: 1)
    let b = Stored(wrappedValue: 0)
    let checking = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    let positive = Computed { _ in
      let value = a.wrappedValue
      if value == 0 {
        checking.signal()
        _ = gate.wait(seconds: 30)  // longer than `settles` waits
      }
      return value > 0
    }
    let host = HeldActor()
    let outerRuns = Counter()
    let innerSaw = Recorder<Int>()
    let subscription = await host.track(positive: positive, b: b, outerRuns: outerRuns) {
      innerSaw.append($0)
    }
    #expect(await settles(subscription))
    #expect(innerSaw.values == [0])

    let held = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    Task { await host.hold(until: release, signalling: held) }
    #expect(await held.waited(seconds: 10))
    b.wrappedValue = 5  // the inner re-run queues behind the held actor
    let first = startThread { a.wrappedValue = 0 }
    #expect(await checking.waited(seconds: 10))
    release.signal()  // the re-run starts while the outer group's check is held
    #expect(await settles(subscription))
    #expect(innerSaw.values == [0])
    gate.signal()
    #expect(await first.waited(seconds: 10))
    #expect(await settles(subscription))
    #expect(outerRuns.value == 2)
    #expect(innerSaw.values == [0])  // dropped before it saw 5 or 0
    subscription.cancel()
  }

  @Test(arguments: [GraphDelivery.scheduled, .synchronous])
  func aGroupIsNotRerunByItsOwnWriteButItsPeersSeeIt(delivery: GraphDelivery) async {
    let count = Stored(wrappedValue: 0)
    let runs = Counter()
    let peerSaw = Recorder<Int>()
    let subscription = withGraphTracking(delivery: delivery) {
      withGraphTrackingGroup {
        runs.tick()
        count.wrappedValue = count.wrappedValue + 1
      }
      withGraphTrackingGroup { peerSaw.append(count.wrappedValue) }
    }
    #expect(runs.value == 1)
    #expect(count.wrappedValue == 1)
    #expect(peerSaw.values == [1])

    count.wrappedValue = 10  // an outside write: one run, which writes 11
    await subscription.settled()
    #expect(runs.value == 2)
    #expect(count.wrappedValue == 11)
    if delivery == .synchronous {
      #expect(peerSaw.values == [1, 11])
    } else {
      // The peer's re-run reads the state as it is when it reads: before the group's
      // re-run wrote 11 or after. A re-run that started before that write runs again for
      // it, whatever it read (while the write was being made, 11 already).
      let seen = peerSaw.values
      #expect(seen == [1, 11] || seen == [1, 10, 11] || seen == [1, 11, 11], "the peer saw \(seen)")
    }
    _ = subscription
  }

  /// Upstream's "stuck" case: a handler running on one thread waits for a
  /// thread that writes a node the handler tracks. The write must not wait.
  @Test(.timeLimit(.minutes(1))) func aWriterNeverWaitsForARunningHandler() async {
    let value = Stored(wrappedValue: 0)
    let entered = DispatchSemaphore(value: 0)
    let writerDone = DispatchSemaphore(value: 0)
    let timedOut = Counter()
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingGroup {
        let current = value.wrappedValue
        seen.append(current)
        if current == 1 {
          entered.signal()
          if writerDone.wait(timeout: .now() + 10) == .timedOut { timedOut.tick() }
        }
      }
    }
    let writer = Thread { value.wrappedValue = 1 }  // its handler run waits for us
    writer.start()
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async {
        entered.wait()
        value.wrappedValue = 2  // returns at once: the handler's thread runs it again
        writerDone.signal()
        continuation.resume()
      }
    }
    while !writer.isFinished { try? await Task.sleep(nanoseconds: 1_000_000) }
    await subscription.settled()
    #expect(timedOut.value == 0)
    #expect(seen.values == [0, 1, 2])
    _ = subscription
  }
}

/// An outer group on a custom actor whose inner group, created while
/// `positive` holds, runs on no actor and hands `a` to `innerSaw`.
private actor OuterGroupHost {
  var runs = 0

  func start(
    a: Stored<Int>, positive: Computed<Bool>, innerSaw: @escaping @Sendable (Int) -> Void
  ) -> StateGraphSubscription {
    withGraphTracking {
      withGraphTrackingGroup {
        self.assertIsolated()
        self.runs += 1
        if positive.wrappedValue {
          withGraphTrackingGroup({ innerSaw(a.wrappedValue) }, isolation: nil)
        }
      }
    }
  }
}

/// An actor whose executor a test holds while it lines up work behind it:
/// the groups it registers re-run there.
private actor HeldActor {
  /// An outer group that, while `positive` holds, keeps an inner group
  /// handing `b` to `innerSaw`.
  func track(
    positive: Computed<Bool>, b: Stored<Int>, outerRuns: Counter,
    innerSaw: @escaping @Sendable (Int) -> Void
  ) -> StateGraphSubscription {
    withGraphTracking {
      withGraphTrackingGroup {
        self.assertIsolated()
        outerRuns.tick()
        if positive.wrappedValue {
          withGraphTrackingGroup {
            self.assertIsolated()
            innerSaw(b.wrappedValue)
          }
        }
      }
    }
  }

  func hold(until release: DispatchSemaphore, signalling held: DispatchSemaphore) {
    held.signal()
    _ = release.wait(seconds: 10)
  }
}

/// Whether the subscription settles within `seconds` (false instead of a hang).
private func settles(_ subscription: StateGraphSubscription, seconds: Int = 20) async -> Bool {
  let done = DispatchSemaphore(value: 0)
  Task {
    await subscription.settled()
    done.signal()
  }
  return await done.waited(seconds: seconds)
}
