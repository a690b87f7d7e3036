/// One `withGraphTrackingGroup`: the body runs in an effect, so its reads are
/// tracked, with a child scope that each run empties first.
///
/// The body must run with its isolation. With synchronous delivery, when a
/// change reaches the effect on a thread that is already there (or the group
/// has no isolation), the body runs again inside the effect. Otherwise (and
/// always with scheduled delivery, the default) the effect retires (it never
/// runs the body again), the previous run's children are cancelled, and a
/// restart is queued for the actor, or for a task of its own when the group
/// has no isolation: a fresh effect whose first run, there, runs the body and
/// tracks what it reads. A retired effect read nothing in its last run, so it
/// triggers nothing more: restarts never pile up, one waits at a time, and
/// its run sees every write before it. All the writer's stack does is retire
/// and queue.
///
/// Owners first. A group created by another group's run (synchronous or
/// scheduled) belongs to it: when one change reaches both, the owner deals
/// with it first, and a child it drops never runs again. The core keeps that
/// order for effects created inside an owner's effect run, but a restart
/// creates its fresh effect in a task, outside any owner's run, so the core
/// no longer knows the owner and may run the child's effect first on the
/// writer's stack. There the child only retires, queues, and takes the
/// ``WriteEnd`` of that write; what this type adds is that the queued
/// restart, once on the actor, starts only when that write has returned (so
/// the owner's effect, which the same write reaches and the same thread
/// runs, has run or been found unchanged) and every owner up the chain has
/// settled (``ownersHaveSettled``): no restart of theirs queued or running,
/// and no later change that reaches their effect not yet dealt with. An
/// owner that the change reaches cancels its children in its effect's run,
/// so the waiting child then finds its queue cancelled and never runs.
/// Until then the child's drain task goes back to its actor a moment later;
/// neither the writer nor an actor waits.
///
/// Body runs and restarts go through one ``DeliveryQueue``: in order, one at
/// a time, none after `cancel`. The installed effect is replaced (and the
/// previous one destroyed) by each restart. `@unchecked Sendable`: `effect`
/// and `isCancelled` are guarded by `lock`, `body` runs only through `runs`,
/// the rest is immutable.
final class TrackingGroup: TrackingMember, @unchecked Sendable {
  // Not Sendable: it runs only as a run of `runs`, with the group's
  // isolation and one run at a time (a delivery queue's guarantees).
  private let body: () -> Void
  private let name: String
  private let file: StaticString
  private let line: UInt
  private let children: TrackingScope
  /// The group whose run registered this one, if any.
  private weak let owner: TrackingGroup?
  private var runs: DeliveryQueue<Void>!  // set once in init
  private let lock = ValueLock()
  @exclusivity(unchecked) private var effect: GraphEffect?  // guarded by `lock`
  @exclusivity(unchecked) private var isCancelled = false  // guarded by `lock`
  /// The write whose effects retired the last effect; the queued restart waits for it.
  @exclusivity(unchecked) private var awaitedWrite: WriteEnd?  // guarded by `lock`

  /// `name`, `file` and `line` name the group's effect node and its runs.
  /// `owner`: the group whose run registers this one.
  init(
    _ delivery: Delivery, name: String, file: StaticString, line: UInt,
    owner: TrackingGroup?, _ body: @escaping () -> Void
  ) {
    children = TrackingScope(
      delivery: delivery.isScheduled ? GraphDelivery.scheduled : .synchronous)
    self.owner = owner
    self.body = body
    self.name = name
    self.file = file
    self.line = line
    // Weak: the queue's drain task may outlive a cancelled group.
    runs = DeliveryQueue(
      delivery, label: "\(name) (\(file):\(line))", runsInsideItsObserver: true,
      mayStart: owner == nil ? nil : { [weak self] in self?.ownersHaveSettled ?? true }
    ) { [weak self] _ in
      self?.restart()
    }
    children.group = self
  }

  /// Creates a group in the current ``withGraphTracking(_:)`` scope and
  /// starts it; `caller` names the API in messages.
  static func register(
    _ caller: String, _ isolation: (any Actor)?, _ file: StaticString, _ line: UInt,
    _ body: @escaping () -> Void
  ) {
    let scope = TrackingScope.required(caller)
    let delivery = Delivery(isolation, scheduled: !scope.delivery.isSynchronous)
    let group = TrackingGroup(
      delivery, name: caller, file: file, line: line, owner: scope.group, body)
    scope.add(group)
    group.start()
  }

  /// Whether every owner up the chain has settled: no restart queued or
  /// running, and its effect is not waiting for a change in progress (see
  /// "Owners first" above). Takes one owner's lock at a time, and the graph
  /// lock only inside an effect's own lock; runs no user code.
  private var ownersHaveSettled: Bool {
    lock.lock()  // the awaited write only
    let awaitedWrite = self.awaitedWrite
    lock.unlock()
    if let awaitedWrite, !awaitedWrite.isReleased { return false }
    var next = owner
    while let group = next {
      if !group.runs.isIdle { return false }
      group.lock.lock()  // reads the installed effect; it is asked outside
      let effect = group.effect
      group.lock.unlock()
      if let effect, !effect.isSettled { return false }
      next = group.owner
    }
    return true
  }

  /// The first run: now when the caller has the body's isolation (the
  /// caller's own, unless the body names another), else on the actor.
  func start() {
    if !runs.runFirst({ restart() }) { runs.submit(()) }
  }

  /// Creates a fresh effect, whose first run runs the body here, and
  /// installs it in place of the previous one.
  private func restart() {
    let fresh = makeEffect()
    lock.lock()  // swaps the installed effect; destroying one happens outside
    let cancelled = isCancelled
    let previous = effect
    effect = cancelled ? nil : fresh
    lock.unlock()
    previous?.cancel()
    if cancelled { fresh.cancel() }
  }

  private func makeEffect() -> GraphEffect {
    // Plain flags: the effect's runs never overlap (the core claims it).
    nonisolated(unsafe) var isFirstRun = true
    nonisolated(unsafe) var isRetired = false
    return GraphEffect(name: name, file: file, line: line) { [weak self] in
      guard let self, !isRetired else { return }
      if isFirstRun {  // inside `restart`: already a run of `runs`, with the isolation
        isFirstRun = false
        return self.runBody()
      }
      if self.runs.runNow({ self.runBody() }) { return }
      isRetired = true
      self.children.cancel(permanently: false)  // stale: the next run makes its own
      if self.owner != nil {
        let end = WriteEnd.current()
        self.lock.lock()  // the awaited write only
        self.awaitedWrite = end
        self.lock.unlock()
      }
      self.runs.submit(())
    }
  }

  private func runBody() {
    children.cancel(permanently: false)
    children.activate(body)
  }

  func settle() async -> Bool {
    let ran = await runs.settle()
    return await children.settle() || ran
  }

  func cancel(_ inProgress: inout [any TrackingMember]) {
    lock.lock()  // the flag and the installed effect; both are stopped outside
    isCancelled = true
    let effect = self.effect
    self.effect = nil
    lock.unlock()
    runs.cancel(&inProgress)
    effect?.cancel()
    children.cancel(&inProgress)
  }
}
