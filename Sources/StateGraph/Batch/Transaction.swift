import StateGraphCore

/// A node a transaction can put back. The node keeps what to put back itself, in its
/// ``OpenWrites`` under its value lock; the transaction only says which nodes and when.
/// Every call runs on the batch's thread, inside the batch (no effect or compute callback
/// can run then).
@usableFromInline
protocol Restorable: AnyObject {
  /// Undoes `transaction`'s open writes of the node, newest first (see ``OpenWrites``).
  func rollBack(_ transaction: ObjectIdentifier)
  /// A nested batch ended without throwing: its open writes become `parent`'s.
  func transfer(from child: ObjectIdentifier, to parent: ObjectIdentifier)
  /// The outermost batch committed: forget its open writes and tell Observation, if the
  /// node does.
  func batchDidCommit(_ transaction: ObjectIdentifier)
}

/// The undo log of one ``withGraphBatch(_:)`` on one thread: the nodes the batch changed,
/// each once (what to put back is in the nodes: see ``OpenWrites``). Logs are reused
/// (see `ThreadState.transactions`), so a batch allocates nothing in the steady state.
///
/// A rollback undoes only what its own batch wrote (SQL's rule): a node that another
/// thread wrote after the batch's last write keeps that newer value; a node that another
/// thread wrote between two of the batch's writes goes back to that thread's value.
@usableFromInline
final class Transaction {
  private struct Entry {
    let owner: any Restorable
    /// The C node the log holds, or nil when the owner keeps it (see `record`).
    let heldNode: OpaquePointer?
    /// The owner's commit, specialised for its value type; nil: `owner.batchDidCommit`.
    /// Unretained: the owner holds it, and the entry holds the owner.
    let commit: Unmanaged<CommitHook>?
  }

  // Per thread, like ThreadState: no dynamic exclusivity checks.
  @exclusivity(unchecked) private var entries: [Entry] = []
  /// Each owner's position in `entries`, once there are more than a few: most batches
  /// change a handful of nodes, and scanning those beats hashing. Built lazily.
  @exclusivity(unchecked) private var index: [ObjectIdentifier: Int] = [:]
  /// Work to do once the outermost batch has ended, committed or rolled back (see
  /// `GraphRuntime.afterOutermostBatch`). Handed to the parent like the entries.
  @exclusivity(unchecked) var completions: [(_ sawRollback: Bool) -> Void] = []
  /// Keys of the completions asked for once (`GraphRuntime.afterOutermostBatch(once:_:)`).
  /// Run after `completions`.
  @exclusivity(unchecked) var keyedCompletions: [ObjectIdentifier: (_ sawRollback: Bool) -> Void] = [:]
  /// This batch, or a nested one that handed its completions here, rolled back.
  @exclusivity(unchecked) var sawRollback = false
  /// The open batch this one is nested in. Unowned: its thread's state holds every log.
  @exclusivity(unchecked) unowned(unsafe) var parent: Transaction?

  /// This thread's innermost open transaction. Inlined: every change asks,
  /// and almost always the answer is nil.
  @inlinable
  static var current: Transaction? { currentUnretained?.takeUnretainedValue() }

  /// ``current`` unretained, for the steps every change takes: the thread's state holds an
  /// open batch's log until the batch ends, which no change on its thread outlives. The
  /// thread's state borrowed: a reference counted here would be paid by every change.
  @inlinable
  static var currentUnretained: Unmanaged<Transaction>? {
    ThreadState.withExisting { $0.innermostTransaction }
  }

  /// What nodes know this transaction by, in their ``OpenWrites``. A reused log gets
  /// the same one, harmlessly: it has no open write left by then.
  @usableFromInline
  var id: ObjectIdentifier { ObjectIdentifier(self) }

  /// Call when the node logged its first open write of this transaction, on the batch's
  /// thread, with no lock held. The log holds `owner` and, when given, `holding`, the C
  /// node until the log ends: a node its owner may outlive (a computed node's, destroyed
  /// with the `Computed`) is then rolled back as stale, never one created at the same
  /// address. A `Stored` destroys its node only when it goes, so it passes nil.
  /// `commit`, when given, does what `owner.batchDidCommit` would, but specialised: through
  /// the existential the commit runs generic code, where every touch of the owner's
  /// ``OpenWrites`` asks the runtime for type metadata.
  @usableFromInline
  func record(
    _ owner: any Restorable, holding node: OpaquePointer?, commit: Unmanaged<CommitHook>? = nil
  ) {
    if let node { sg_node_hold_unchecked(node) }
    entries.append(Entry(owner: owner, heldNode: node, commit: commit))
  }

  /// Hands the log to the enclosing transaction: the nodes' open writes become its own.
  func merge(into parent: Transaction) {
    for entry in entries {
      entry.owner.transfer(from: id, to: parent.id)
      if parent.position(of: ObjectIdentifier(entry.owner)) == nil {
        parent.entries.append(entry)  // the hold goes with it
      } else {
        if let node = entry.heldNode { sg_node_release_unchecked(node) }
      }
    }
    entries.removeAll(keepingCapacity: true)
    index.removeAll(keepingCapacity: true)
  }

  /// Hands the completions to the enclosing transaction, whether this one committed or
  /// rolled back: they re-examine state once no batch of this thread can change it.
  func passCompletions(to parent: Transaction) {
    parent.completions.append(contentsOf: completions)
    completions.removeAll(keepingCapacity: true)
    if sawRollback { parent.sawRollback = true }
    for (key, action) in keyedCompletions where parent.keyedCompletions[key] == nil {
      parent.keyedCompletions[key] = action
    }
    keyedCompletions.removeAll()
  }

  /// Runs the completions of the outermost batch, which has ended: no lock is held.
  func runCompletions() {
    while !completions.isEmpty || !keyedCompletions.isEmpty {
      let pending = completions + keyedCompletions.values
      completions.removeAll(keepingCapacity: true)
      keyedCompletions.removeAll()
      for completion in pending { completion(sawRollback) }
    }
  }

  private func position(of id: ObjectIdentifier) -> Int? {
    if entries.count <= 8 { return entries.firstIndex { ObjectIdentifier($0.owner) == id } }
    // Entries are only ever appended: index the ones added since the last look.
    while index.count < entries.count {
      index[ObjectIdentifier(entries[index.count].owner)] = index.count
    }
    return index[id]
  }

  /// Puts back every node the batch changed and nobody changed since, newest change
  /// first; dependents re-check and find nothing changed.
  func rollback() {
    for entry in entries.reversed() { entry.owner.rollBack(id) }
  }

  /// The outermost batch committed.
  func commit() {
    // Element by element, in place: a copied entry, or the array itself, would count
    // references.
    for index in entries.indices {
      if let commit = entries[index].commit {
        commit._withUnsafeGuaranteedRef { $0.run(id) }
      } else {
        entries[index].owner.batchDidCommit(id)
      }
    }
  }

  /// Lets go of the logged nodes, keeping the storage for the next batch.
  func reset() {
    for index in entries.indices {
      if let node = entries[index].heldNode { sg_node_release_unchecked(node) }
    }
    // Tested first: emptying an empty collection still costs a call into the library.
    if !entries.isEmpty { entries.removeAll(keepingCapacity: true) }
    if !index.isEmpty { index.removeAll(keepingCapacity: true) }
    if !completions.isEmpty { completions.removeAll(keepingCapacity: true) }
    if !keyedCompletions.isEmpty { keyedCompletions.removeAll() }
    sawRollback = false
    parent = nil
  }
}

/// A node's commit, specialised for its value type (see `Transaction.record`): a closure
/// in an object, so that the log can hold it without counting a reference and call it
/// without retaining its context.
@usableFromInline
final class CommitHook {
  @usableFromInline let run: (ObjectIdentifier) -> Void

  @usableFromInline
  init(_ run: @escaping (ObjectIdentifier) -> Void) { self.run = run }
}
