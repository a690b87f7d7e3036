import StateGraphCore

/// The writes that batches still open have made to one node, kept by the node under its
/// value lock, so that a rollback undoes exactly its own batch's writes.
///
/// Revisions: next to its value, and under the same lock, a node keeps a *revision*, a
/// number naming the value it holds. Every change takes a new one from a per-node counter
/// that only grows, so a number is never handed out twice; a restore gives back the
/// revision that named the restored value. A write knows the revision it replaced
/// (`RestorePoint.revision`) and the one it gave (`revisionWritten`).
///
/// The rule (SQL's: a rollback never touches another transaction's write), for an open
/// write `w` of the batch that rolls back:
/// - the node still holds `w`'s revision: nobody wrote since, so the node goes back to
///   `w`'s restore point (value, revision and version in one step);
/// - another batch's open write `v` came right after `w` (`v`'s restore point is `w`'s
///   revision): `w`'s value is void, so `v` takes over `w`'s restore point, and rolling
///   `v` back later goes past `w` too;
/// - otherwise a write outside any batch, or of a batch that has committed, came after
///   `w`: it stays, and there is nothing to do.
///
/// A batch's consecutive writes to a node are one open write; a nested batch's writes
/// pass to the enclosing batch when it ends without throwing, joining the enclosing
/// batch's open write when they continue it. Open writes go when their outermost batch
/// commits. A batch reuses the array's storage: no allocation in the steady state.
@usableFromInline
struct OpenWrites<Value> {
  /// What a rollback puts back.
  @usableFromInline
  struct RestorePoint {
    @usableFromInline var value: Value
    @usableFromInline var revision: UInt64
    /// The C version that named `value`: a node's value and version move in one step
    /// under its lock.
    @usableFromInline var version: UInt64
    /// Runs after the restore, with no lock held (a persisted node writes its backing back).
    @usableFromInline var undo: (() -> Void)?

    @inlinable
    init(
      value: Value, revision: UInt64, version: UInt64, undo: (() -> Void)?
    ) {
      self.value = value
      self.revision = revision
      self.version = version
      self.undo = undo
    }
  }

  @usableFromInline
  struct Write {
    @usableFromInline var transaction: ObjectIdentifier
    @usableFromInline var before: RestorePoint
    /// The revision this write gave the node, and for a stored node its C version
    /// (a computed node gets its version from the core after its run: 0, unused).
    @usableFromInline var revisionWritten: UInt64
    @usableFromInline var versionWritten: UInt64

    @inlinable
    init(
      transaction: ObjectIdentifier, before: RestorePoint, revisionWritten: UInt64,
      versionWritten: UInt64
    ) {
      self.transaction = transaction
      self.before = before
      self.revisionWritten = revisionWritten
      self.versionWritten = versionWritten
    }
  }

  @usableFromInline var writes: [Write] = []

  // The searches below loop over indices rather than call `lastIndex(where:)` and the
  // like: this generic code runs unspecialised, where the collection algorithms go
  // through protocol witnesses that allocate per element.

  /// The index of `transaction`'s newest open write.
  @inlinable
  func newest(of transaction: ObjectIdentifier) -> Int? {
    var index = writes.count
    while index > 0 {
      index -= 1
      if writes[index].transaction == transaction { return index }
    }
    return nil
  }

  @inlinable
  init() {}

  /// Logs a write of `transaction` that replaced `before` and gave the node
  /// `revisionWritten`. Returns true when it is the transaction's first write of the node,
  /// which the transaction must then record.
  @inlinable
  mutating func add(
    _ transaction: ObjectIdentifier, before: RestorePoint, revisionWritten: UInt64,
    versionWritten: UInt64
  ) -> Bool {
    if let last = newest(of: transaction) {
      if writes[last].revisionWritten == before.revision {  // continues it
        writes[last].revisionWritten = revisionWritten
        writes[last].versionWritten = versionWritten
        return false
      }
      writes.append(
        Write(
          transaction: transaction, before: before, revisionWritten: revisionWritten,
          versionWritten: versionWritten))
      return false
    }
    writes.append(
      Write(
        transaction: transaction, before: before, revisionWritten: revisionWritten,
        versionWritten: versionWritten))
    return true
  }

  /// A nested batch ended without throwing: its writes become the enclosing batch's.
  mutating func transfer(from child: ObjectIdentifier, to parent: ObjectIdentifier) {
    var index = 0
    while index < writes.count {
      guard writes[index].transaction == child else {
        index += 1
        continue
      }
      let revision = writes[index].before.revision
      var joined: Int? = nil
      for candidate in 0..<writes.count
      where writes[candidate].transaction == parent && writes[candidate].revisionWritten == revision {
        joined = candidate  // the last one, as the search from the end found
      }
      if let joined {
        writes[joined].revisionWritten = writes[index].revisionWritten
        writes[joined].versionWritten = writes[index].versionWritten
        writes.remove(at: index)
      } else {
        writes[index].transaction = parent
        index += 1
      }
    }
  }

  /// The outermost batch committed: its writes are ordinary history now. Inlinable, for
  /// `Stored.commitHook`, which runs it specialised.
  @inlinable
  mutating func drop(_ transaction: ObjectIdentifier) {
    // Emptying keeps the buffer for the node's next batch.
    var kept = 0
    for index in 0..<writes.count where writes[index].transaction != transaction {
      if kept != index { writes[kept] = writes[index] }
      kept += 1
    }
    // Array's own method when nothing is kept (the usual case): where this runs
    // unspecialised (a computed node's commit, through `Restorable`), the collection
    // algorithm looked up witness tables and metadata for every element removed.
    if kept == 0 {
      writes.removeAll(keepingCapacity: true)
    } else {
      writes.removeLast(writes.count - kept)
    }
  }

  /// Removes and returns `transaction`'s newest open write, or nil when none is left.
  mutating func popNewest(of transaction: ObjectIdentifier) -> Write? {
    guard let index = newest(of: transaction) else { return nil }
    return writes.remove(at: index)
  }

  /// `write` was rolled back while the node held a later value: the open write that came
  /// right after it, if any, takes over its restore point.
  mutating func bypass(_ write: Write) {
    for next in 0..<writes.count where writes[next].before.revision == write.revisionWritten {
      writes[next].before = write.before
      return
    }
  }
}
