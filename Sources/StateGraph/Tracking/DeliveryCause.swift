/// Why a handler run happens: a write made outside any handler (a root), or
/// a write made by the run of another (or the same) handler, which is this
/// link's `previous`. Handlers that keep writing each other's inputs build an
/// ever longer chain, across threads and actor hops alike; at
/// ``DeliveryCause/limit`` links the program stops and names the handlers,
/// as the core stops C effects that loop within one write (SG_ECYCLE).
final class DeliveryCause: Sendable {
  /// Runs in a row, each caused by the previous one's writes: the same bound
  /// as the core's laps of an effect loop within one write (`SG_EFFECT_LOOP_LIMIT`).
  static let limit = 100

  /// The handler that runs, as the loop message names it: formatted only for
  /// that message, so a registration keeps no string for it.
  let label: @Sendable () -> String
  let previous: DeliveryCause?
  let depth: Int
  /// The root whose handler this run is (nil: this is that root).
  private let origin: ObjectIdentifier?

  /// A root: the run of `label` that a write outside any handler causes.
  init(root label: @escaping @Sendable () -> String) {
    self.label = label
    previous = nil
    depth = 0
    origin = nil
  }

  private init(_ label: @escaping @Sendable () -> String, after previous: DeliveryCause, origin: DeliveryCause) {
    self.label = label
    self.previous = previous
    depth = previous.depth + 1
    self.origin = ObjectIdentifier(origin)
  }

  /// The cause of a run of this root's handler asked for on this thread
  /// now: the root itself, unless a handler is running here, whose run then
  /// caused it.
  ///
  /// `runsInsideItsObserver`: the handler's runs are runs of its own graph
  /// observer (a tracking group's body runs inside its effect), which the
  /// core never runs again for the run's own writes. A run asked for while
  /// the handler's own run is going on here was then caused by the run of
  /// another handler that ended here meanwhile (the core ran it at the end
  /// of this run's operation), or else by another thread's write that
  /// arrived meanwhile: a root, not a link of a chain.
  func next(runsInsideItsObserver: Bool = false) -> DeliveryCause {
    next(in: ThreadState.existing, runsInsideItsObserver: runsInsideItsObserver)
  }

  /// ``next(runsInsideItsObserver:)`` with this thread's state already looked up.
  func next(in state: ThreadState?, runsInsideItsObserver: Bool) -> DeliveryCause {
    guard let state, var running = state.cause else { return self }
    if runsInsideItsObserver, (running.origin ?? ObjectIdentifier(running)) == ObjectIdentifier(self) {
      guard let ended = state.endedRun else { return self }
      running = ended
    }
    let cause = DeliveryCause(label, after: running, origin: self)
    if cause.depth >= Self.limit { cause.reportLoop() }
    return cause
  }

  /// Runs `body` as the run this cause describes: writes it makes cause
  /// further runs with this link as their `previous`.
  func run(_ body: () -> Void) {
    run(in: ThreadState.current, body)
  }

  /// ``run(_:)`` with this thread's state already looked up.
  func run(in state: ThreadState, _ body: () -> Void) {
    let outer = state.cause
    state.cause = self
    state.endedRun = nil
    defer {
      state.cause = outer
      state.endedRun = self  // for the run this one ran inside, if any
    }
    body()
  }

  private func reportLoop() -> Never {
    let name = label()
    var names = [name]
    var link = previous
    while let current = link, names.count <= 8 {
      let currentName = current.label()
      names.append(currentName)
      if currentName == name { break }  // back where the loop began
      link = current.previous
    }
    fatalError(
      "StateGraph: observers writing each other's inputs without end: "
        + names.reversed().joined(separator: " -> ")
        + " (\(Self.limit) runs in a row, each caused by the previous one's writes)")
  }
}
