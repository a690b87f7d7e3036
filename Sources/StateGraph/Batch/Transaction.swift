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
  /// The ids in `entries`, once there are more than a few: most batches
  /// change a handful of nodes, and scanning those beats hashing into a set
  /// that must be allocated first.
  @exclusivity(unchecked) private var index: Set<ObjectIdentifier>?

  init(parent: Transaction?) { self.parent = parent }

  deinit {
    for entry in entries { sg_node_release(entry.node) }
  }

  /// This thread's innermost open transaction.
  @usableFromInline
  static var current: Transaction? {
    // Inlined: every change asks, and almost always the answer is nil.
    @inlinable get { ThreadState.existing?.transaction }
    set { ThreadState.current.transaction = newValue }
  }

  /// Call before the node's value and version change. The log holds the C
  /// node until it ends: a node destroyed meanwhile is then rolled back as
  /// stale, never one created at the same address.
  func record(
    _ owner: AnyObject, node: OpaquePointer, restore: @escaping () -> Void,
    notify: (() -> Void)? = nil
  ) {
    let id = ObjectIdentifier(owner)
    guard isFirstRecord(of: id) else { return }
    let version = sg_node_version_unchecked(node)
    sg_node_hold(node)
    entries.append(Entry(id: id, node: node, version: version, restore: restore, notify: notify))
  }

  /// Hands the log to the enclosing transaction, which keeps its own older
  /// snapshot where both changed a node.
  func merge(into parent: Transaction) {
    for entry in entries {
      if parent.isFirstRecord(of: entry.id) {
        parent.entries.append(entry)  // the hold goes with it
      } else {
        sg_node_release(entry.node)
      }
    }
    entries.removeAll()
  }

  /// False when `id` already has an entry; the caller appends one otherwise.
  private func isFirstRecord(of id: ObjectIdentifier) -> Bool {
    if index == nil {
      if entries.contains(where: { $0.id == id }) { return false }
      if entries.count < 8 { return true }
      index = Set(entries.map(\.id))
    }
    return index!.insert(id).inserted
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
