import StateGraphCore

/// The undo log of one ``withGraphBatch(_:)`` on one thread. The first time a
/// node changes inside the batch it records how to put the node back (value
/// and version) and, for stored nodes, how to tell Observation afterwards.
@usableFromInline
final class Transaction {
  private struct Entry {
    let id: ObjectIdentifier
    let node: OpaquePointer
    let version: UInt64
    let restore: () -> Void
    let notify: (() -> Void)?
  }

  let parent: Transaction?
  // Per thread, like ThreadState: no dynamic exclusivity checks.
  @exclusivity(unchecked) private var entries: [Entry] = []
  @exclusivity(unchecked) private var recorded: Set<ObjectIdentifier> = []

  init(parent: Transaction?) { self.parent = parent }

  /// This thread's innermost open transaction.
  @usableFromInline
  static var current: Transaction? {
    // Inlined: every change asks, and almost always the answer is nil.
    @inlinable get { ThreadState.existing?.transaction }
    set { ThreadState.current.transaction = newValue }
  }

  /// Call before the node's value and version change. The closures keep the
  /// node alive until the transaction ends.
  func record(
    _ owner: AnyObject, node: OpaquePointer, restore: @escaping () -> Void,
    notify: (() -> Void)? = nil
  ) {
    let id = ObjectIdentifier(owner)
    guard recorded.insert(id).inserted else { return }
    let version = sg_node_version_unchecked(node)
    entries.append(Entry(id: id, node: node, version: version, restore: restore, notify: notify))
  }

  /// Hands the log to the enclosing transaction, which keeps its own older
  /// snapshot where both changed a node.
  func merge(into parent: Transaction) {
    for entry in entries where parent.recorded.insert(entry.id).inserted {
      parent.entries.append(entry)
    }
  }

  /// Puts every node back as it was when the transaction began, newest
  /// change first; dependents re-check and find nothing changed.
  func rollback() {
    for entry in entries.reversed() {
      entry.restore()
      sg_rollback(entry.node, entry.version)
    }
  }

  func notifyObservers() {
    for entry in entries { entry.notify?() }
  }
}
