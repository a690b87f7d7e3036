import Foundation
import Testing

@testable import StateGraph

/// Scheduled delivery, the default for tracking groups and maps: a change
/// schedules one re-run with the handler's isolation, changes before it
/// starts merge into it, it reads the state as it is then, and it never runs
/// inside the write that caused it.
@Suite("Delivery: scheduled re-runs")
struct DeliveryScheduleTests {
  /// A thread-local mark set around the write: a re-run inside the write
  /// (on the writer's stack) would see it.
  @Test(.timeLimit(.minutes(1))) func aGroupWithoutIsolationNeverReRunsInsideTheWrite() async {
    let node = Stored(wrappedValue: 0)
    let reRan = DispatchSemaphore(value: 0)
    let sawWritersMark = Recorder<Bool>()
    let marker = "delivery-schedule-writer-mark"
    let subscription = withGraphTracking {
      withGraphTrackingGroup(
        {
          guard node.wrappedValue == 1 else { return }
          sawWritersMark.append(Thread.current.threadDictionary[marker] != nil)
          reRan.signal()
        }, isolation: nil)
    }
    let writer = startThread {
      Thread.current.threadDictionary[marker] = true
      node.wrappedValue = 1
      Thread.current.threadDictionary.removeObject(forKey: marker)
    }
    #expect(await writer.waited(seconds: 10))
    #expect(await reRan.waited(seconds: 10))
    #expect(sawWritersMark.values == [false])
    _ = subscription
  }

  /// The sum goes 10 → 11 → 10 and 10 → 9 → 10 within two pairs of writes,
  /// then to 11: the runs see the state after each pair, so the handler
  /// hears 10 (at registration) and 11, nothing in between.
  @Test(.timeLimit(.minutes(1))) @MainActor func aMapHearsOnlyTheSumsItsRunsSee() async {
    let count1 = Stored(wrappedValue: 5)
    let count2 = Stored(wrappedValue: 5)
    let projections = Counter()
    var sums: [Int] = []  // main-actor state, no lock
    let subscription = withGraphTracking {
      withGraphTrackingMap({ projections.run(count1.wrappedValue + count2.wrappedValue) }) {
        sums.append($0)
      }
    }
    count1.wrappedValue = 6
    count2.wrappedValue = 4
    await subscription.settled()
    count1.wrappedValue = 7
    count2.wrappedValue = 3
    await subscription.settled()
    count1.wrappedValue = 8
    await subscription.settled()
    #expect(sums == [10, 11])
    #expect(projections.value == 4)
  }

  /// Upstream's "serialized re-run" case, which is also a handler that blocks
  /// until the writer's next statement: the run for 1 waits for a gate the
  /// writer opens only after its next write (2) has returned. The write of 2
  /// must not wait for that run; the run for 2 comes after it, with a fresh
  /// registration that hears 3.
  @Test(.timeLimit(.minutes(1))) func aHandlerWaitingForTheWritersNextStatementNeverDeadlocks() async {
    let value = Stored(wrappedValue: 0)
    let firstRunStarted = DispatchSemaphore(value: 0)
    let gate = DispatchSemaphore(value: 0)
    let sawTwo = DispatchSemaphore(value: 0)
    let sawThree = DispatchSemaphore(value: 0)
    let gateTimedOut = Counter()
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingGroup(
        {
          let current = value.wrappedValue
          seen.append(current)
          switch current {
          case 1:
            firstRunStarted.signal()
            if gate.wait(timeout: .now() + 10) == .timedOut { gateTimedOut.tick() }
          case 2: sawTwo.signal()
          case 3: sawThree.signal()
          default: break
          }
        }, isolation: nil)
    }
    let steps = Recorder<String>()
    let writer = startThread {
      value.wrappedValue = 1
      guard firstRunStarted.wait(seconds: 10) else { return steps.append("no run for 1") }
      value.wrappedValue = 2  // the run for 1 is still waiting: this must return
      gate.signal()
      guard sawTwo.wait(seconds: 10) else { return steps.append("no run for 2") }
      value.wrappedValue = 3
      guard sawThree.wait(seconds: 10) else { return steps.append("no run for 3") }
      steps.append("done")
    }
    #expect(await writer.waited(seconds: 40))
    #expect(steps.values == ["done"])
    #expect(gateTimedOut.value == 0)
    #expect(seen.values == [0, 1, 2, 3])
    _ = subscription
  }

  /// N writes from one thread while the group's run for the first one is
  /// still going: a run never overlaps the one before, so all of them merge
  /// into one re-run, which sees the last.
  @Test(.timeLimit(.minutes(1))) func writesInARowGiveOneReRunThatSeesTheLast() async {
    let value = Stored(wrappedValue: 0)
    let firstRunStarted = DispatchSemaphore(value: 0)
    let writesDone = DispatchSemaphore(value: 0)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingGroup(
        {
          let current = value.wrappedValue
          seen.append(current)
          if current == 1 {
            firstRunStarted.signal()
            _ = writesDone.wait(timeout: .now() + 10)
          }
        }, isolation: nil)
    }
    let writer = startThread {
      value.wrappedValue = 1
      guard firstRunStarted.wait(seconds: 10) else { return }
      for next in 2...100 { value.wrappedValue = next }
      writesDone.signal()
    }
    #expect(await writer.waited(seconds: 20))
    await subscription.settled()
    #expect(seen.values == [0, 1, 100])
  }

  /// The same on the main actor, written there: the re-run needs the main
  /// actor, which the writing code holds until it is done.
  @Test(.timeLimit(.minutes(1))) @MainActor func writesOnTheGroupsActorMergeIntoOneReRun() async {
    let value = Stored(wrappedValue: 0)
    var seen: [Int] = []
    let subscription = withGraphTracking {
      withGraphTrackingGroup { seen.append(value.wrappedValue) }
    }
    for next in 1...100 { value.wrappedValue = next }
    #expect(seen == [0])  // nothing inside the writes
    await subscription.settled()
    #expect(seen == [0, 100])
  }

  /// Written from a thread of its own, a main-actor group runs on the main
  /// actor (the runtime's own check of the current executor says so).
  @Test(.timeLimit(.minutes(1))) @MainActor func aMainActorGroupWrittenElsewhereRunsOnTheMainActor()
    async
  {
    let value = Stored(wrappedValue: 0)
    let runs = Recorder<String>()
    let subscription = withGraphTracking {
      withGraphTrackingGroup {
        let onMainActor = Delivery(MainActor.shared).isCurrent
        runs.append("\(value.wrappedValue) \(onMainActor ? "main actor" : "elsewhere")")
      }
    }
    #expect(onAnotherThread { value.wrappedValue = 1 })
    await subscription.settled()
    #expect(runs.values == ["0 main actor", "1 main actor"])
  }

  /// Cancelled while its re-run waits for the main actor: the re-run never
  /// happens, and `settled()` does not wait for it.
  @Test(.timeLimit(.minutes(1))) @MainActor func cancellingDuringAPendingReRunRunsNothing() async {
    let value = Stored(wrappedValue: 0)
    let groupRuns = Counter()
    let mapRuns = Counter()
    let subscription = withGraphTracking {
      withGraphTrackingGroup {
        groupRuns.tick()
        _ = value.wrappedValue
      }
      withGraphTrackingMap({ value.wrappedValue }) { _ in mapRuns.tick() }
    }
    value.wrappedValue = 1  // both re-runs are scheduled for the main actor, which is busy here
    subscription.cancel()
    await subscription.settled()
    for _ in 0..<100 { await Task.yield() }
    #expect(groupRuns.value == 1)
    #expect(mapRuns.value == 1)
  }

  /// With synchronous delivery, as before: each write re-runs the group
  /// within the write, on the writing thread.
  @Test func synchronousDeliveryReRunsWithinEachWrite() {
    let value = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking(delivery: .synchronous) {
      withGraphTrackingGroup({ seen.append(value.wrappedValue) }, isolation: nil)
      withGraphTrackingMap({ value.wrappedValue * 10 }, onChange: { seen.append($0) }, isolation: nil)
    }
    value.wrappedValue = 1
    value.wrappedValue = 2
    #expect(seen.values == [0, 0, 1, 10, 2, 20])
    _ = subscription
  }

  /// Groups created inside a group's run follow the scope's delivery too.
  @Test func nestedGroupsInheritTheScopesDelivery() {
    let outer = Stored(wrappedValue: 0)
    let inner = Stored(wrappedValue: 0)
    let seen = Recorder<String>()
    let subscription = withGraphTracking(delivery: .synchronous) {
      withGraphTrackingGroup(
        {
          let generation = outer.wrappedValue
          withGraphTrackingGroup({ seen.append("\(generation):\(inner.wrappedValue)") }, isolation: nil)
        }, isolation: nil)
    }
    inner.wrappedValue = 1
    outer.wrappedValue = 1
    inner.wrappedValue = 2
    #expect(seen.values == ["0:0", "0:1", "1:1", "1:2"])
    _ = subscription
  }

  /// Each write arrives while the group's run for the write before is still
  /// going (the run waits for it), so the core runs the group's observer
  /// again right after that run, on the run's thread: 300 times in a row,
  /// each caused by the writer, not by the run before. No loop to report.
  @Test(.timeLimit(.minutes(2))) func writesArrivingDuringEachRunAreNoLoop() async {
    await #expect(processExitsWith: .success) {
      let value = Stored(wrappedValue: 0)
      let read = DispatchSemaphore(value: 0)
      let written = DispatchSemaphore(value: 0)
      let subscription = withGraphTracking {
        withGraphTrackingGroup(
          {
            let current = value.wrappedValue
            read.signal()
            if current > 0 { _ = written.wait(timeout: .now() + 10) }
          }, isolation: nil)
      }
      read.wait()
      for next in 1...300 {
        value.wrappedValue = next
        if next > 1 { written.signal() }  // the run for `next - 1` may end now
        guard read.wait(timeout: .now() + 10) == .success else { exit(1) }
      }
      written.signal()
      subscription.cancel()
    }
  }

  /// `settled()` also waits for runs that runs of the same subscription
  /// scheduled: a group writing what a map reads.
  @Test(.timeLimit(.minutes(1))) func settledWaitsForRunsScheduledByRuns() async {
    let source = Stored(wrappedValue: 0)
    let relay = Stored(wrappedValue: 0)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      withGraphTrackingMap({ relay.wrappedValue }, onChange: { seen.append($0) }, isolation: nil)
      withGraphTrackingGroup({ relay.wrappedValue = source.wrappedValue * 2 }, isolation: nil)
    }
    source.wrappedValue = 21
    await subscription.settled()
    #expect(seen.values == [0, 42])
    #expect(relay.wrappedValue == 42)
  }
}

/// Many threads writing what scheduled groups and maps read, under the
/// thread sanitizer in `make test-tsan`: runs of one handler never overlap,
/// the last run sees the final state, and no run starts after `cancel()`.
@Suite("Delivery: scheduled re-run stress")
struct DeliveryScheduleStressTests {
  static let threads = 4
  static let writes = 2_000

  @Test(.timeLimit(.minutes(3))) func concurrentWritesNeverOverlapRunsAndEndOnTheFinalState() async {
    for _ in 0..<5 {
      let a = Stored(wrappedValue: 0)
      let b = Stored(wrappedValue: 0)
      let active = Counter()
      let overlaps = Counter()
      let lastSum = Recorder<Int>()
      let lastMapped = Recorder<Int>()
      let inside = NSLock()
      nonisolated(unsafe) var running = false
      let subscription = withGraphTracking {
        withGraphTrackingGroup(
          {
            inside.lock()
            if running { overlaps.tick() }
            running = true
            inside.unlock()
            active.tick()
            lastSum.append(a.wrappedValue + b.wrappedValue)
            inside.lock()
            running = false
            inside.unlock()
          }, isolation: nil)
        withGraphTrackingMap({ a.wrappedValue - b.wrappedValue }, onChange: { lastMapped.append($0) }, isolation: nil)
      }
      let writers = (0..<Self.threads).map { index in
        startThread {
          for step in 1...Self.writes {
            if index % 2 == 0 { a.wrappedValue = index * Self.writes + step } else { b.wrappedValue = step }
          }
        }
      }
      for writer in writers { #expect(await writer.waited(seconds: 60)) }
      await subscription.settled()
      #expect(overlaps.value == 0)
      #expect(lastSum.values.last == a.wrappedValue + b.wrappedValue)
      #expect(lastMapped.values.last == a.wrappedValue - b.wrappedValue)
      #expect(active.value >= 2)
      subscription.cancel()
    }
  }

  /// Once `cancelAndWait()` has returned (so no run is in progress), writes
  /// that go on run nothing more.
  @Test(.timeLimit(.minutes(3))) func noRunStartsAfterCancelReturns() async {
    for _ in 0..<20 {
      let value = Stored(wrappedValue: 0)
      let runs = Counter()
      let subscription = withGraphTracking {
        withGraphTrackingGroup(
          {
            _ = value.wrappedValue
            runs.tick()
          }, isolation: nil)
        withGraphTrackingMap({ value.wrappedValue }, onChange: { _ in runs.tick() }, isolation: nil)
      }
      let halfway = DispatchSemaphore(value: 0)
      let writer = startThread {
        for step in 1...Self.writes {
          value.wrappedValue = step
          if step == Self.writes / 2 { halfway.signal() }
        }
      }
      #expect(await halfway.waited(seconds: 60))
      await subscription.cancelAndWait()
      let runsAtCancel = runs.value
      #expect(await writer.waited(seconds: 60))
      await subscription.settled()
      for _ in 0..<50 { await Task.yield() }
      #expect(runs.value == runsAtCancel)
    }
  }
}
