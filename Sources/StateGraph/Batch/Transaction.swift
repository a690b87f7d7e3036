import StateGraphCore

/// A node a transaction can put back: it logs its value before the first
/// change inside a batch and gets it back, as `Any`, on rollback.
protocol Restorable: AnyObject {
  /// Puts back the logged value; no equality check, no notification.
  func restore(_ oldValue: Any)
  /// The outermost batch committed: tell Observation, if the node does.
  func batchDidCommit()
}

/// The undo log of one ``withGraphBatch(_:)`` on one thread. The first time a
/// node changes inside the batch it records how to put the node back: its
/// value and version. Logs are reused (see `ThreadState.spareTransactions`),
/// and an entry stores the value as `Any` (inline for small values) rather
/// than in a closure, so a batch allocates nothing in the steady state.
@usableFromInline
final class Transaction {
  private struct Entry {
    let owner: any Restorable
    let node: OpaquePointer
    let version: UInt64
    let oldValue: Any
    let undo: (() -> Void)?
  }

  // Per thread, like ThreadState: no dynamic exclusivity checks.
  @exclusivity(unchecked) private var entries: [Entry] = []
  /// The owners in `entries`, once there are more than a few: most batches
  /// change a handful of nodes, and scanning those beats hashing.
  @exclusivity(unchecked) private var index: Set<ObjectIdentifier> = []

  /// This thread's innermost open transaction. Inlined: every change asks,
  /// and almost always the answer is nil.
  @inlinable
  static var current: Transaction? { ThreadState.existing?.transaction }

  /// Call before the node's value and version change. The log holds the C
  /// node until it ends: a node destroyed meanwhile is then rolled back as
  /// stale, never one created at the same address. `undo` runs after the
  /// restore (a persisted node writes its backing back).
  func record(
    _ owner: any Restorable, node: OpaquePointer, oldValue: Any, undo: (() -> Void)? = nil
  ) {
    guard isFirstRecord(of: ObjectIdentifier(owner)) else { return }
    let version = sg_node_version_unchecked(node)
    sg_node_hold_unchecked(node)
    entries.append(
      Entry(owner: owner, node: node, version: version, oldValue: oldValue, undo: undo))
  }

  /// Hands the log to the enclosing transaction, which keeps its own older
  /// snapshot where both changed a node.
  func merge(into parent: Transaction) {
    for entry in entries {
      if parent.isFirstRecord(of: ObjectIdentifier(entry.owner)) {
        parent.entries.append(entry)  // the hold goes with it
      } else {
        sg_node_release(entry.node)
      }
    }
    entries.removeAll(keepingCapacity: true)
  }

  /// False when `id` already has an entry; the caller appends one otherwise.
  private func isFirstRecord(of id: ObjectIdentifier) -> Bool {
    if index.isEmpty {
      if entries.contains(where: { ObjectIdentifier($0.owner) == id }) { return false }
      if entries.count < 8 { return true }
      for entry in entries { index.insert(ObjectIdentifier(entry.owner)) }
    }
    return index.insert(id).inserted
  }

  /// Puts every node back as it was when the transaction began, newest
  /// change first; dependents re-check and find nothing changed.
  func rollback() {
    for entry in entries.reversed() {
      entry.owner.restore(entry.oldValue)
      entry.undo?()
      sg_rollback(entry.node, entry.version)
    }
  }

  func notifyObservers() {
    for entry in entries { entry.owner.batchDidCommit() }
  }

  /// Lets go of the logged nodes, keeping the storage for the next batch.
  func reset() {
    for entry in entries { sg_node_release(entry.node) }
    entries.removeAll(keepingCapacity: true)
    index.removeAll(keepingCapacity: true)
  }
}
