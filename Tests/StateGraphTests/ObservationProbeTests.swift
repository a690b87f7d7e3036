import Foundation
import Observation
import Testing

@testable import StateGraph

/// A node gets its Observation registrar at its first read that Observation tracks, found
/// by `TrackingProbe`; reads nobody tracks leave it without one.
@Suite("Observation probe")
struct ObservationProbeTests {
  @Test func theProbeAnswersInsideAndOutsideTracking() {
    #expect(TrackingProbe.isTrusted)
    #expect(!TrackingProbe.isTracking())
    #expect(withObservationTracking { TrackingProbe.isTracking() } onChange: {})
    // A computation inside a tracked read is still inside the tracking: the probe says
    // so, and the node read there is kept out of it by the core (a read inside).
    let source = Stored(wrappedValue: 1)
    let seen = Recorder<Bool>()
    let derived = Computed { _ in
      seen.append(TrackingProbe.isTracking())
      return source.wrappedValue
    }
    _ = withObservationTracking { derived.wrappedValue } onChange: {}
    #expect(seen.values == [true])
    #expect(!TrackingProbe.isTracking())
  }

  @Test func readsNobodyTracksMakeNoRegistrar() {
    let stored = Stored(wrappedValue: 1)
    let computed = Computed { _ in stored.wrappedValue * 2 }
    #expect(stored.wrappedValue == 1)
    #expect(computed.wrappedValue == 2)
    stored.wrappedValue = 2
    #expect(computed.wrappedValue == 4)
    #expect(stored.lock.withLock { stored.side == nil })
    #expect(computed.box._withUnsafeGuaranteedRef { box in box.lock.withLock { box.observation == nil } })

    let fired = Counter()
    withObservationTracking {
      _ = stored.wrappedValue
      _ = computed.wrappedValue
    } onChange: { fired.tick() }
    #expect(stored.lock.withLock { stored.side?.observation != nil })
    #expect(computed.box._withUnsafeGuaranteedRef { box in box.lock.withLock { box.observation != nil } })
    stored.wrappedValue = 3
    #expect(fired.value == 1)
  }

  /// The registrar a tracked read probed with is the one the node keeps: the tracking's
  /// entry for the probe is the node's own, and ends with it.
  @Test func aTrackedReadKeepsTheRegistrarItProbedWith() {
    let computed = Computed { _ in 1 }
    #expect(!TrackingProbe.isTracking())  // the thread has its spare now
    let spare = ThreadState.current.spareRegistrar?.takeUnretainedValue()
    #expect(spare != nil)
    _ = withObservationTracking { computed.wrappedValue } onChange: {}
    #expect(computed.box._withUnsafeGuaranteedRef { $0.observation } === spare)
    #expect(ThreadState.current.spareRegistrar == nil)
  }

  /// Observation's registrar cancels what was registered with it when it goes; the node
  /// keeps the registrar the tracking recorded, so an `onChange` whose nodes go before any
  /// change is released with them.
  @Test func anOnChangeIsReleasedWithTheNodesItTracked() {
    final class Payload: Sendable {}
    weak var released: Payload?
    do {
      let stored = Stored(wrappedValue: 1)
      let computed = Computed { _ in stored.wrappedValue + 1 }
      let payload = Payload()
      released = payload
      withObservationTracking {
        _ = stored.wrappedValue
        _ = computed.wrappedValue
      } onChange: { [payload] in _ = payload }
    }
    #expect(released == nil)
  }

  @Test func aReadOnAnotherThreadProbesThere() {
    let stored = Stored(wrappedValue: 1)
    let fired = Counter()
    #expect(onAnotherThread {
      withObservationTracking { _ = stored.wrappedValue } onChange: { fired.tick() }
      _ = stored.wrappedValue  // untracked, on a thread whose spare went to `stored`
    })
    stored.wrappedValue = 2
    #expect(fired.value == 1)
  }
}

/// Run under the thread sanitizer by `make test` (filter: Stress).
@Suite("Observation probe Stress")
struct ObservationProbeStressTests {
  final class Payload: Sendable {}

  /// Hands objects to threads without their closures capturing them.
  final class Handoff<Object: AnyObject>: @unchecked Sendable {
    private let lock = NSLock()
    private var objects: [Object]
    init(_ objects: [Object]) { self.objects = objects }
    func take() -> Object { lock.withLock { objects.removeLast() } }
  }

  @inline(never)
  static func readTracked(_ node: Computed<Int>, _ payload: Payload, _ fired: Counter) {
    _ = withObservationTracking { node.wrappedValue } onChange: { [payload] in
      _ = payload
      fired.tick()
    }
  }

  /// Two threads make the first tracked read of one fresh computed node at once (its
  /// computation is slow, so both find it without a registrar): the node keeps one
  /// thread's registrar, both trackings hear of its change, and when the node goes
  /// unchanged neither `onChange` outlives it, though both threads are still alive (a
  /// registrar left with the losing thread would hold its tracking).
  @Test(.timeLimit(.minutes(1)))
  func twoFirstTrackedReadsOfOneNodeLeaveNothingBehind() {
    for round in 0..<500 {
      let tracker = LifetimeTracker()
      let fired = Counter()
      let (start, read, finish) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
      var threads: [DispatchSemaphore] = []
      do {
        let source = Stored(wrappedValue: round)
        let computed = Computed { _ in
          usleep(200)
          return source.wrappedValue
        }
        let nodes = Handoff([computed, computed])
        let payloads = Handoff([tracker.track(Payload()), tracker.track(Payload())])
        for _ in 0..<2 {
          threads.append(
            startThread {
              start.wait()
              Self.readTracked(nodes.take(), payloads.take(), fired)
              read.signal()
              finish.wait()
            })
        }
        start.signal()
        start.signal()
        #expect(read.wait(seconds: 20) && read.wait(seconds: 20))
        if round % 2 == 0 {
          source.wrappedValue += 1
          #expect(fired.value == 2)
        }
      }
      // The nodes went; the threads still run. Bounded, not immediate: a snapshot of the
      // graph on another thread (a test running beside this one) may hold a node a moment
      // longer, and its destroy then runs there.
      #expect(eventuallyBlocking(timeout: .seconds(5)) { tracker.aliveCount == 0 })
      finish.signal()
      finish.signal()
      for thread in threads { #expect(thread.wait(seconds: 20)) }
    }
  }

  /// Threads read fresh nodes for the first time at once, some inside a tracking, some
  /// not: every tracking hears of the next change exactly once, whichever thread's probe
  /// the node kept.
  @Test(.timeLimit(.minutes(1)))
  func firstReadsRacingOnFreshNodesAllReachTheirTrackings() async {
    let threads = 4
    for round in 0..<200 {
      let source = Stored(wrappedValue: round)
      let stored = Stored(wrappedValue: round)
      let computed = Computed { _ in source.wrappedValue + 1 }
      let fired = Counter()
      let start = DispatchGroup()
      start.enter()
      let readers = (0..<threads).map { index in
        startThread {
          start.wait()
          if index % 2 == 0 {
            withObservationTracking {
              _ = stored.wrappedValue
              _ = computed.wrappedValue
            } onChange: { fired.tick() }
          } else {
            _ = stored.wrappedValue
            _ = computed.wrappedValue
          }
        }
      }
      start.leave()
      for reader in readers { #expect(reader.wait(seconds: 20)) }
      source.wrappedValue += 1
      #expect(fired.value == threads / 2)
      stored.wrappedValue += 1
      #expect(fired.value == threads / 2)  // one-shot: each fired at the first change
    }
  }
}
