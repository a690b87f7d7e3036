/// Runs `body` as a transaction: its writes are staged, seen only by this thread until
/// `body` returns, then applied together as one step; when `body` throws, none is applied.
///
/// ```swift
/// enum CheckoutError: Error { case emptyCart }
///
/// try withGraphTransaction { () throws(CheckoutError) in
///   cart.items = []
///   cart.total = 0
///   if cart.isEmpty { throw .emptyCart }  // nothing was applied, no observer runs
/// }
/// ```
///
/// What it guarantees:
/// - **Isolation.** Inside `body`, reads on this thread (stored and computed nodes,
///   `@GraphStored` properties, and the `onDidSet`/`didSet` handlers the writes run) see
///   the staged values; every other thread reads the committed ones until the commit.
///   Computed nodes read inside are evaluated against the staged values and leave nothing
///   in the shared graph; reads inside create no Observation or tracking registration.
/// - **All or nothing.** Nothing is applied until the outermost transaction's `body`
///   returns; then every staged write is applied in one step, and a computation on another
///   thread never keeps a value that mixes values from before and after it. Two separate
///   reads outside any computation may fall on either side of the commit.
/// - **Rollback.** When `body` throws, its writes are dropped and nobody is notified; an
///   inner transaction that throws (caught by the outer one) drops only its own writes.
///   A plain node made inside is not part of the transaction: it takes this thread's
///   writes at once and keeps them, so a model made inside is never left half
///   initialised.
///   Backed nodes (UserDefaults, custom backings) are saved at the commit only: first,
///   then applied in the same step as the other nodes.
/// - **Observers** run once, after the commit, with the final values. `onDidSet` handlers
///   and a property's `didSet` run as `body` assigns, and their writes are staged too.
/// - **Writers on other threads** are never held up: a plain write to a node the
///   transaction staged applies at once, and the commit then writes the staged value over
///   it (the commit wins). The outcome is the serial order "that write, then the
///   transaction". Reads inside see the latest commit when they are made (read
///   committed): two transactions that both increment a node at once may commit the
///   same value.
///
/// A ``withGraphBatch(_:)`` inside a transaction is staged like a nested transaction; a
/// transaction inside a batch commits into that batch, which may still roll it back.
///
/// Thread safety: a transaction belongs to the thread that runs it.
/// - Complexity: a write or a read of a staged node costs a dictionary look-up, and the
///   first write of a node visits the computations that depend on it. A computed node that
///   depends on a staged node runs its closure when read (once until the next write), and
///   so do the computed nodes it reads; others are read as usual. The commit is
///   O(*w* log *w*) for *w* written nodes, plus the nodes they mark. Evaluating against
///   staged values recurses through the computed nodes read up to a small depth; a
///   deeper chain over a staged node is evaluated from its bottom up, in the stack of a
///   shallow one.
/// - Parameter body: the writes to stage.
/// - Returns: what `body` returns.
@discardableResult
public func withGraphTransaction<Result, Failure: Error>(
  _ body: () throws(Failure) -> Result
) throws(Failure) -> Result {
  try Staging.run(body)
}

extension Staging {
  /// Runs `body` as a staged level of this thread: the outermost one commits, a nested one
  /// hands its writes to the enclosing level; a level whose body throws is dropped.
  static func run<Result, Failure: Error>(
    _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let state = ThreadState.current
    let parent = state.staging
    let level = state.spareStagings.popLast() ?? Staging(parent: nil)
    level.parent = parent
    defer {
      level.reset()
      state.spareStagings.append(level)
    }
    #if !canImport(Darwin)
      if parent == nil { openStagings.add(1, ordering: .relaxed) }
      defer { if parent == nil { openStagings.subtract(1, ordering: .relaxed) } }
    #endif
    state.staging = level
    let result: Result
    do {
      result = try body()
      // Before anything is locked, and still seeing the whole pending commit: nodes' own
      // comparisons, which are user code.
      if parent == nil { for write in level.writes { write.decideOwnComparison() } }
    } catch {
      level.discard()
      state.staging = parent
      state.leftUndoIfOutermost()
      if parent == nil { level.runCompletions() }
      throw error
    }
    state.staging = parent
    if let parent {
      level.merge(into: parent)
    } else {
      level.commit()
      state.leftUndoIfOutermost()
      level.runCompletions()
    }
    return result
  }
}
