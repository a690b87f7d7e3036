import StateGraphCore

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
/// with it first, and a child it drops never runs again. The core keeps
/// that order between an effect and the effects created in its run; a
/// restart creates its fresh effect later, in a task, so it names the owner
/// to the core: the owner's effect whose run registered the group, held for
/// the group's life (`sg_effect_new_owned`). Then, for every write wherever
/// it comes from (Swift, C, a batch's end) and on any thread:
///
/// - The writer's flush runs (or finds unchanged) the owner's effect before
///   the child's: an owner the change reaches retires and cancels its
///   children first, so the child's effect, destroyed, never runs, and its
///   queued restart, cancelled, never starts. A child's effect that does
///   run knows its owners have dealt with the change.
/// - A restart's first run, too, comes after its owners: one that a change
///   reached and no thread has run yet runs first, on the restarting thread
///   (it may cancel the child, whose first run then reads nothing); one
///   running on another thread takes the first run over when its run ends,
///   and there the child's effect acts as on any change: it retires and
///   queues a restart (``makeEffect()`` tells the two runs apart by thread).
///
/// Nobody waits: a child never holds a thread until its owner is done, the
/// core hands it to the owner's thread instead, and owners never look at
/// their children, so no two groups wait for each other.
///
/// Body runs and restarts go through one ``DeliveryQueue``: in order, one at
/// a time, none after `cancel`. The installed effect is replaced (and the
/// previous one destroyed) by each restart. `@unchecked Sendable`: `effect`
/// and `isCancelled` are guarded by `lock`, `body` runs only through `runs`,
/// the rest is immutable (the held owner effect is the core's, safe from any
/// thread).
final class TrackingGroup: TrackingMember, @unchecked Sendable {
  // Not Sendable: it runs only as a run of `runs`, with the group's
  // isolation and one run at a time (a delivery queue's guarantees).
  private let body: () -> Void
  private let name: String
  private let file: StaticString
  private let line: UInt
  private let children: TrackingScope
  /// The owner's effect whose run registered this group (held; see
  /// "Owners first"), or nil for a group registered outside any group.
  private let ownerEffect: OpaquePointer?
  private var runs: DeliveryQueue<Void>!  // set once in init
  private let lock = ValueLock()
  @exclusivity(unchecked) private var effect: GraphEffect?  // guarded by `lock`
  @exclusivity(unchecked) private var isCancelled = false  // guarded by `lock`

  /// `name`, `file` and `line` name the group's effect node and its runs.
  /// `isOwned`: registered by another group's run, whose effect is running here.
  init(
    _ delivery: Delivery, name: String, file: StaticString, line: UInt,
    isOwned: Bool, _ body: @escaping () -> Void
  ) {
    children = TrackingScope(
      delivery: delivery.isScheduled ? GraphDelivery.scheduled : .synchronous)
    ownerEffect = isOwned ? Self.holdRunningEffect() : nil
    self.body = body
    self.name = name
    self.file = file
    self.line = line
    // Weak: the queue's drain task may outlive a cancelled group.
    runs = DeliveryQueue(
      delivery, label: "\(name) (\(file):\(line))", runsInsideItsObserver: true
    ) { [weak self] _ in
      self?.restart()
    }
    children.group = self
  }

  deinit {
    if let ownerEffect { sg_node_release_unchecked(ownerEffect) }
  }

  /// The effect whose run is registering a group here, held so that its
  /// handle stays valid after its owner group destroys it.
  private static func holdRunningEffect() -> OpaquePointer? {
    guard let running = sg_current(), sg_node_hold(running) == 0 else { return nil }
    return running
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
      delivery, name: caller, file: file, line: line, isOwned: scope.group != nil, body)
    scope.add(group)
    group.start()
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
    let creator = ThreadState.current
    return GraphEffect(name: name, file: file, line: line, owner: ownerEffect) { [weak self] in
      guard let self, !isRetired else { return }
      if isFirstRun {
        isFirstRun = false
        // Inside `restart`, here: already a run of `runs`, with the isolation.
        // Elsewhere, an owner's thread took the first run over: a change like any.
        if ThreadState.current === creator {
          if self.isCancelledNow {  // an owner that ran first dropped this group
            isRetired = true
            return
          }
          return self.runBody()
        }
      }
      if self.runs.runNow({ self.runBody() }) { return }
      isRetired = true
      self.children.cancel(permanently: false)  // stale: the next run makes its own
      self.runs.submit(())
    }
  }

  private var isCancelledNow: Bool {
    lock.lock()  // the flag only
    defer { lock.unlock() }
    return isCancelled
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
