/// Why a handler run happens: a write made outside any handler (a root), or
/// a write made by the run of another (or the same) handler, which is this
/// link's `previous`. Handlers that keep writing each other's inputs build an
/// ever longer chain, across threads and actor hops alike; at
/// ``DeliveryCause/limit`` links the program stops and names the handlers,
/// as the core stops C effects that loop within one write (SG_ECYCLE).
final class DeliveryCause: Sendable {
  /// Runs in a row, each caused by the previous one's writes: the core's
  /// bound for effects within one write (`SG_EFFECT_RUN_LIMIT`).
  static let limit = 100

  /// The handler that runs, as the loop message names it.
  let label: String
  let previous: DeliveryCause?
  let depth: Int

  /// A root: the run of `label` that a write outside any handler causes.
  init(root label: String) {
    self.label = label
    previous = nil
    depth = 0
  }

  private init(_ label: String, after previous: DeliveryCause) {
    self.label = label
    self.previous = previous
    depth = previous.depth + 1
  }

  /// The cause of a run of this root's handler asked for on this thread
  /// now: the root itself, unless a handler is running here, whose run then
  /// caused it.
  func next() -> DeliveryCause {
    guard let running = ThreadState.existing?.cause else { return self }
    let cause = DeliveryCause(label, after: running)
    if cause.depth >= Self.limit { cause.reportLoop() }
    return cause
  }

  /// Runs `body` as the run this cause describes: writes it makes cause
  /// further runs with this link as their `previous`.
  func run(_ body: () -> Void) {
    let state = ThreadState.current
    let outer = state.cause
    state.cause = self
    defer { state.cause = outer }
    body()
  }

  private func reportLoop() -> Never {
    var names = [label]
    var link = previous
    while let current = link, names.count <= 8 {
      names.append(current.label)
      if current.label == label { break }  // back where the loop began
      link = current.previous
    }
    fatalError(
      "StateGraph: observers writing each other's inputs without end: "
        + names.reversed().joined(separator: " -> ")
        + " (\(Self.limit) runs in a row, each caused by the previous one's writes)")
  }
}
