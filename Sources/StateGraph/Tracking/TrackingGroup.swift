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
  private var runs: DeliveryQueue<Void>!  // set once in init
  private let lock = ValueLock()
  @exclusivity(unchecked) private var effect: GraphEffect?  // guarded by `lock`
  @exclusivity(unchecked) private var isCancelled = false  // guarded by `lock`

  /// `name`, `file` and `line` name the group's effect node and its runs.
  init(
    _ delivery: Delivery, name: String, file: StaticString, line: UInt,
    _ body: @escaping () -> Void
  ) {
    children = TrackingScope(
      delivery: delivery.isScheduled ? GraphDelivery.scheduled : .synchronous)
    self.body = body
    self.name = name
    self.file = file
    self.line = line
    // Weak: the queue's drain task may outlive a cancelled group.
    runs = DeliveryQueue(delivery, label: "\(name) (\(file):\(line))", runsInsideItsObserver: true) {
      [weak self] _ in
      self?.restart()
    }
  }

  /// Creates a group in the current ``withGraphTracking(_:)`` scope and
  /// starts it; `caller` names the API in messages.
  static func register(
    _ caller: String, _ isolation: (any Actor)?, _ file: StaticString, _ line: UInt,
    _ body: @escaping () -> Void
  ) {
    let scope = TrackingScope.required(caller)
    let delivery = Delivery(isolation, scheduled: !scope.delivery.isSynchronous)
    let group = TrackingGroup(delivery, name: caller, file: file, line: line, body)
    scope.add(group)
    group.start()
  }

  /// The first run: now when the caller has the body's isolation (always,
  /// through `#isolation`), else on the actor.
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
