import StateGraphCore

/// What the normalization module needs to know about the running thread, and a way to
/// act once this thread's batches are over. Package-internal: not part of the public API.
package enum GraphRuntime {
  /// True while a computation or an observer of the graph runs on this thread: a read
  /// now records a dependency.
  package static var isComputing: Bool { GraphCore.isComputing }

  /// True inside a ``withGraphBatch(_:)`` on this thread.
  package static var isInsideBatch: Bool { Transaction.current != nil }

  /// Runs `action` once the outermost ``withGraphBatch(_:)`` of this thread has ended,
  /// committed or rolled back, after its observers ran; right away outside any batch.
  /// It runs with no lock of the library held, on this thread. For state that a batch
  /// still open could change, such as a node the batch emptied and a rollback refills.
  package static func afterOutermostBatch(_ action: @escaping () -> Void) {
    guard let transaction = Transaction.current else { return action() }
    transaction.completions.append(action)
  }
}
