import StateGraphCore

/// What the normalization module needs to know about the running thread, and a way to
/// act once this thread's batches are over. Package-internal: not part of the public API.
package enum GraphRuntime {
  /// True while a computation or an observer of the graph runs on this thread: a read
  /// now records a dependency.
  package static var isComputing: Bool { GraphCore.isComputing }

  /// True inside a ``withGraphBatch(_:)`` or ``withGraphTransaction(_:)`` on this thread.
  package static var isInsideBatch: Bool { Transaction.current != nil || Staging.current != nil }

  /// True inside a ``withGraphTransaction(_:)`` on this thread: writes are staged.
  package static var isInsideTransaction: Bool { Staging.current != nil }

  /// Runs `action` once the outermost ``withGraphBatch(_:)`` or ``withGraphTransaction(_:)``
  /// of this thread has ended, committed or rolled back, after its observers ran; right
  /// away outside any. It runs with no lock of the library held, on this thread, and is
  /// told whether a batch or transaction (the outermost or a nested one) rolled back. For
  /// state that one still open could change, such as a node a batch emptied and a rollback
  /// refills.
  package static func afterOutermostBatch(_ action: @escaping (_ sawRollback: Bool) -> Void) {
    if let transaction = Transaction.current { return transaction.completions.append(action) }
    if let staging = Staging.current { return staging.root.completions.append(action) }
    action(false)
  }

  /// ``afterOutermostBatch(_:)``, once per `key` however many times it is asked for
  /// before the outermost batch or transaction ends: the first action given runs.
  package static func afterOutermostBatch(
    once key: ObjectIdentifier, _ action: @escaping (_ sawRollback: Bool) -> Void
  ) {
    if let transaction = Transaction.current {
      if transaction.keyedCompletions[key] == nil { transaction.keyedCompletions[key] = action }
      return
    }
    if let root = Staging.current?.root {
      if root.keyedCompletions[key] == nil { root.keyedCompletions[key] = action }
      return
    }
    action(false)
  }
}
