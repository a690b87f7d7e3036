import StateGraphCore

/// One handler's deliveries: a FIFO of elements run one at a time, in order,
/// with the handler's isolation, and never after ``cancel(_:)`` returned.
///
/// `@unchecked Sendable`: the protocol below is what makes it safe. `run` is
/// not Sendable: only the runner calls it, with the handler's isolation.
///
/// The protocol (every field below but `state` is read and written under `lock` only):
///
/// - `pending`: elements not yet taken, oldest first. Anyone appends; only
///   the runner takes, the whole buffer at once (so a run element is released
///   outside the lock), and runs its elements in order before taking again.
/// - `queuedCount`: how many elements `pending` holds.
/// - `state` (``RunState``): `running`, one runner owns the queue, and
///   `attention`, set by `lock`'s holder whenever an element is queued, a waiter
///   waits, a drain task is in flight or the queue is cancelled. A submitter
///   already on the handler's actor (the common case) takes an idle queue with
///   one compare-and-swap from nothing to `running`, runs its element, and gives
///   the queue back with one from `running` to nothing, taking no lock. Any other
///   start (a submitter or drain task under `lock`, seeing no `running`) and
///   every stop that finds `attention` happen under `lock`. Setting `attention`
///   returns the word it replaced, so a runner on its way out either fails its
///   compare-and-swap and looks under the lock, or was out before: then the
///   setter saw no `running` and starts a runner itself. So an element appended
///   is always either seen by the runner or starts one.
/// - `isScheduled`: a drain task was sent to the actor and has not started;
///   at most one is in flight, so hops never pile up nor overtake each other.
/// - `isCancelled`: set once, never cleared. The runner checks it under the
///   lock right before each run, so once `cancel` has returned no element
///   starts running; a run already started finishes.
/// - `idleWaiters`: resumed by the runner when it stops running.
/// - `settleWaiters`: resumed once nothing is running, queued or scheduled:
///   by the runner when it stops with no drain task in flight, or by `cancel`
///   or `settle` when they find the queue so.
/// - `waiterCount`: how many both lists hold, tested instead of the lists.
///
/// A drain task that reached the actor starts at once: no queue waits for
/// another. The order between handlers (a tracking group's owner before the
/// groups it created) is the core's, kept where the runs are asked for (see
/// ``TrackingGroup``, "Owners first").
///
/// A submitter that finds the queue running only appends: either another thread
/// runs the queue on the actor, or the runner is up this thread's stack (a
/// handler that wrote to the graph), which then runs the element after the
/// current one, never recursively.
///
/// Each element travels with its ``DeliveryCause``, so handlers that keep
/// re-running each other through their queues stop with a message instead
/// of running forever.
@usableFromInline
final class DeliveryQueue<Element>: TrackingMember, @unchecked Sendable {
  private let lock = ValueLock()
  @exclusivity(unchecked) private var pending: [(Element, DeliveryCause)] = []
  /// Tested instead of `pending.isEmpty`: this class runs unspecialised, and
  /// each use of the generic buffer asks the runtime for its metadata, which
  /// costs more than the rest of a delivery that queues nothing.
  @exclusivity(unchecked) private var queuedCount = 0
  private let state = RunState()
  @exclusivity(unchecked) private var isScheduled = false
  @exclusivity(unchecked) private var isCancelled = false
  @exclusivity(unchecked) private var idleWaiters: [CheckedContinuation<Void, Never>] = []
  @exclusivity(unchecked) private var settleWaiters: [CheckedContinuation<Void, Never>] = []
  /// Tested instead of the lists, for the reason `queuedCount` is.
  @exclusivity(unchecked) private var waiterCount = 0
  private let delivery: Delivery
  private let run: (Element) -> Void
  /// The cause of runs that writes outside any handler ask for.
  private let root: DeliveryCause

  /// Its runs are runs of its graph observer (see ``DeliveryCause/next(runsInsideItsObserver:)``).
  private let runsInsideItsObserver: Bool

  /// `label` names the handler in the loop message: what registered it, and
  /// where; it is formatted only if that message is shown.
  /// `runsInsideItsObserver`: each run is a run of the handler's effect (a tracking group).
  init(
    _ delivery: Delivery, label: @autoclosure @escaping @Sendable () -> String,
    runsInsideItsObserver: Bool = false, run: @escaping (Element) -> Void
  ) {
    self.delivery = delivery
    self.run = run
    self.runsInsideItsObserver = runsInsideItsObserver
    root = DeliveryCause(root: label)
  }

  /// Runs `element` now when the handler's delivery allows a run right here
  /// (``Delivery/runsInline``) and nothing is queued before it; else queues
  /// it for the actor (or a task of its own).
  @usableFromInline
  func submit(_ element: Element) {
    let isOnActor = delivery.runsInline
    if isOnActor, state.tryStart() {  // the common case: an idle queue, no lock
      runHere(element)
      if !state.tryStop() { drain() }
      return
    }
    lock.lock()  // no user code inside: flags only
    if isCancelled {
      lock.unlock()
      return
    }
    // Idle but for a waiter or a drain task on its way: run it here all the same.
    if isOnActor, queuedCount == 0, state.set(RunState.running) & RunState.running == 0 {
      lock.unlock()
      runHere(element)
      drain()
      return
    }
    lock.unlock()
    enqueue(element, isOnActor: isOnActor)
  }

  /// One run on this thread, now, as the cause this thread's state says.
  /// A write outside any handler (no run going on here) is the usual
  /// case: the run is a root, whose record this queue already holds.
  private func runHere(_ element: Element) {
    guard let raw = sg_binding_slot()!.pointee else {
      return root.run(in: ThreadState.current) { run(element) }  // this thread's first run
    }
    // Borrowed: the thread keeps its state alive.
    Unmanaged<ThreadState>.fromOpaque(raw)._withUnsafeGuaranteedRef { state in
      guard state.cause == nil else {
        let cause = root.next(in: state, runsInsideItsObserver: runsInsideItsObserver)
        return cause.run(in: state) { run(element) }
      }
      // `root.run(in:)` without what no one reads: no run encloses this one,
      // so no one looks at `endedRun` for it afterwards, and during it only
      // a queue of this root would (one whose runs are its observer's).
      state.cause = root
      if runsInsideItsObserver { state.endedRun = nil }
      run(element)
      state.cause = nil
    }
  }

  /// ``submit(_:)`` when the element cannot run right now: queues it with
  /// its cause, and starts a runner (here, or a drain task) unless one runs.
  @inline(never)
  private func enqueue(_ element: Element, isOnActor: Bool) {
    let cause = root.next(runsInsideItsObserver: runsInsideItsObserver)
    lock.lock()  // flags and the buffer only
    if isCancelled {
      lock.unlock()
      return
    }
    append(element, cause)
    queuedCount += 1
    // `running` too when on the actor: the runner, if none was, is this thread.
    let before = state.set(RunState.attention | (isOnActor ? RunState.running : 0))
    if before & RunState.running != 0 {
      lock.unlock()
      return
    }
    if isOnActor {
      lock.unlock()
      drain()
      return
    }
    let schedules = !isScheduled
    isScheduled = true
    lock.unlock()
    if schedules { delivery.hop { self.drainOnActor() } }
  }

  /// Runs `body` as this queue's next run when the handler's delivery allows
  /// a run right here and the queue is idle; returns false, running nothing,
  /// when it does not or is not. A cancelled queue runs nothing and returns true.
  func runNow(_ body: () -> Void) -> Bool {
    guard delivery.runsInline else { return false }
    return run(body)
  }

  /// Like ``runNow(_:)`` for a registration's first run, which happens
  /// during the registration whatever the delivery, when this thread has the
  /// handler's isolation.
  func runFirst(_ body: () -> Void) -> Bool {
    guard delivery.isCurrent else { return false }
    return run(body)
  }

  private func run(_ body: () -> Void) -> Bool {
    let state = ThreadState.current
    let cause = root.next(in: state, runsInsideItsObserver: runsInsideItsObserver)
    lock.lock()  // flags only
    if isCancelled {
      lock.unlock()
      return true
    }
    if queuedCount != 0 || self.state.set(RunState.running) & RunState.running != 0 {
      lock.unlock()
      return false
    }
    lock.unlock()
    cause.run(in: state, body)
    if !self.state.tryStop() { drain() }
    return true
  }

  /// The hopped task, on the actor.
  private func drainOnActor() {
    lock.lock()  // flags only
    isScheduled = false
    // A runner on the actor that took over meanwhile sees `attention`, still set.
    if state.set(RunState.running) & RunState.running != 0 {
      lock.unlock()
      return
    }
    lock.unlock()
    drain()
  }

  /// The runner's loop: takes what is queued, runs it in order, and again
  /// until nothing is left (or the queue is cancelled).
  private func drain() {
    while true {
      lock.lock()  // takes the buffer; the runs happen outside
      if isCancelled || queuedCount == 0 {
        if waiterCount == 0 {  // the usual case
          stopRunning()
          lock.unlock()
          return
        }
        return resumeWaiters()
      }
      runQueued()
    }
  }

  /// Whether something under `lock` needs the runner (see `state`). Under `lock`.
  private var needsAttention: Bool {
    isCancelled || queuedCount != 0 || waiterCount != 0 || isScheduled
  }

  /// The runner gives the queue back, keeping `attention` only while something needs
  /// it. Under `lock`: while the queue runs, nobody else changes its word.
  private func stopRunning() {
    state.clear(needsAttention ? RunState.running : RunState.running | RunState.attention)
  }

  /// Clears `attention` that nothing needs any more. Under `lock`, with no runner.
  private func settleAttention() {
    if !needsAttention { state.clear(RunState.attention) }
  }

  /// The runner's wake-ups as it stops running (`lock` is held on entry and
  /// released here).
  @inline(never)
  private func resumeWaiters() {
    var waiters = idleWaiters
    idleWaiters = []
    if !isScheduled {
      waiters += settleWaiters
      settleWaiters = []
    }
    waiterCount = settleWaiters.count
    stopRunning()
    lock.unlock()
    for waiter in waiters { waiter.resume() }
  }

  // The buffer is used out of line, in the two functions below: a function
  // that touches it looks up the element tuple's metadata on entry, so
  // `submit` and `drain` would pay for it on every delivery, queued or not.

  /// Queues `element`; `lock` is held.
  @inline(never)
  private func append(_ element: Element, _ cause: DeliveryCause) {
    pending.append((element, cause))
  }

  /// Takes the buffer (`lock` is held on entry and released here) and runs
  /// its elements in order.
  @inline(never)
  private func runQueued() {
    let batch = pending
    pending = []
    queuedCount = 0
    lock.unlock()
    let state = ThreadState.current
    for (element, cause) in batch {
      lock.lock()  // the cancel check right before the run
      let isCancelled = isCancelled
      lock.unlock()
      if isCancelled { break }
      cause.run(in: state) { run(element) }
    }
  }

  /// Nothing running, queued or on its way to the actor (or cancelled).
  var isIdle: Bool {
    lock.lock()  // flags only
    defer { lock.unlock() }
    return isCancelled || (!state.isRunning && !isScheduled && queuedCount == 0)
  }

  func cancel(_ inProgress: inout [any TrackingMember]) {
    lock.lock()  // flags and the buffer only
    isCancelled = true
    // Asked before the look at `running`: a runner still running sees it on its way out.
    let isRunning = state.set(RunState.attention) & RunState.running != 0
    let dropped = pending
    pending = []
    queuedCount = 0
    var settled: [CheckedContinuation<Void, Never>] = []
    if !isRunning, !isScheduled {
      settled = settleWaiters
      settleWaiters = []
      waiterCount = idleWaiters.count
    }
    lock.unlock()
    _ = dropped  // released outside the lock: a deinit may run user code
    for waiter in settled { waiter.resume() }
    inProgress.append(self)
  }

  func waitUntilIdle() async {
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      lock.lock()  // registers the waiter; the runner resumes it outside the lock
      // Attention first: a runner then either sees it on its way out or was out.
      if state.set(RunState.attention) & RunState.running == 0 {
        settleAttention()
        lock.unlock()
        waiter.resume()
        return
      }
      idleWaiters.append(waiter)
      waiterCount += 1
      lock.unlock()
    }
  }

  /// Returns once nothing is running, queued or on its way to the actor;
  /// true when it had to wait for that.
  func settle() async -> Bool {
    lock.lock()  // a quick look first: most queues are idle
    let isIdle = !state.isRunning && !isScheduled && (queuedCount == 0 || isCancelled)
    lock.unlock()
    if isIdle { return false }
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      lock.lock()  // registers the waiter; the runner resumes it outside the lock
      // Attention first: a runner then either sees it on its way out or was out.
      let isRunning = state.set(RunState.attention) & RunState.running != 0
      if !isRunning, !isScheduled, queuedCount == 0 || isCancelled {
        settleAttention()
        lock.unlock()
        waiter.resume()
        return
      }
      settleWaiters.append(waiter)
      waiterCount += 1
      lock.unlock()
    }
    return true
  }
}
