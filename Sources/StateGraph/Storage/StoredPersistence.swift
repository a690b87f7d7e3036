import Foundation
import StateGraphCore

/// Ties one persisted ``Stored`` node to the ``StorageSlot`` of its place: encodes what the
/// node is given, decodes what the slot hands over, and falls back to the declared value
/// when the place holds nothing or something unreadable. Both spellings of a persisted
/// property (`@GraphStored(backed:)` and `@GraphUserDefault`) are a node with one of these.
/// `@unchecked Sendable`: `owner` and `changeHandler` are guarded by `ownerLock`,
/// `sequence` as its comment says, the rest is immutable.
@usableFromInline
final class StoredPersistence<Value>: StorageSlotMember, @unchecked Sendable {
  private let slot: StorageSlot
  private let codec: StorageCodec<Value>
  /// The declared value: what the node reads while the place holds nothing usable.
  private let defaultValue: Value
  /// Set once by ``bind(to:)``, while other threads may already deliver: hence the lock.
  private weak var owner: Stored<Value>?
  /// Called after the node took a different value, from a write or from the place
  /// (`GraphUserDefault.onDidSet`).
  private var changeHandler: ((Value, Value) -> Void)?
  private let ownerLock = ValueLock()
  /// The slot's change number of the value the owner holds. Until ``bind(to:)`` only this
  /// object's creator touches it; afterwards only under the owner's value lock (inside
  /// ``Stored/replace(with:isCurrent:undo:joinsBatch:)``).
  private var sequence: UInt64

  var valueType: Any.Type { Value.self }

  private init(slot: StorageSlot, codec: StorageCodec<Value>, defaultValue: Value) {
    self.slot = slot
    self.codec = codec
    self.defaultValue = defaultValue
    self.sequence = 0
  }

  deinit { slot.leave(ObjectIdentifier(self)) }

  /// Joins `backing`'s slot; returns the persistence and the value the node starts with.
  /// Call ``bind(to:)`` once the node exists.
  static func join(
    _ backing: any StorageBacking, codec: StorageCodec<Value>, defaultValue: Value
  ) -> (StoredPersistence, initialValue: Value) {
    let persistence = StoredPersistence(
      slot: .shared(for: backing), codec: codec, defaultValue: defaultValue)
    let (stored, sequence) = persistence.slot.join(persistence)
    persistence.sequence = sequence  // not shared yet: the node does not exist
    return (persistence, persistence.value(of: stored))
  }

  /// Starts delivering to `owner`, first whatever the slot received since ``join``.
  func bind(to owner: Stored<Value>) {
    let joinedAt = sequence  // read before deliveries can reach `advance`
    ownerLock.withLock { self.owner = owner }
    slot.catchUp(self, since: joinedAt)
  }

  /// Sets the closure called after each change of the node's value, with the old and the
  /// new value; nil removes it.
  func onChange(_ handler: ((Value, Value) -> Void)?) {
    let replaced = ownerLock.withLock {
      defer { changeHandler = handler }
      return changeHandler
    }
    withExtendedLifetime(replaced) {}  // released with no lock held: it may own anything
  }

  /// The node's write, and the only way a value of this program reaches the place, with
  /// ``saveForCommit(_:)``: saves it, then gives it to the other nodes on the place and to
  /// the node. When the enclosing batch rolls back, the place's previous content comes
  /// back, unless someone else changed the place since (see `StorageSlot.restore`).
  @usableFromInline
  func write(_ newValue: Value, to owner: Stored<Value>) {
    guard let (stored, value) = encode(newValue) else { return }
    let thread = ObjectIdentifier(ThreadState.current)
    let (sequence, previous, lineage) = slot.write(stored, from: self, thread: thread)
    let undo = restoring(previous, lineage: lineage, undoing: sequence, thread: thread)
    take(value, sequence: sequence, in: owner, isWrite: true, undo: undo)
  }

  /// What the node takes for `newValue`, and the place's content for it; nil (reported)
  /// when it cannot be encoded: then neither the node nor the place changes.
  private func encode(_ newValue: Value) -> (PropertyListValue?, Value)? {
    do {
      let stored = try codec.encode(newValue)
      // Setting an optional to nil removes the key, which then reads as the declared value.
      return (stored, stored == nil ? defaultValue : newValue)
    } catch {
      StorageDiagnostic.report(.unencodable, slot.backing.description, Value.self, "\(error)")
      return nil
    }
  }

  /// A write's undo: put back what the place held before change `sequence`.
  private func restoring(
    _ previous: PropertyListValue?, lineage: StorageLineage, undoing sequence: UInt64,
    thread: ObjectIdentifier
  ) -> () -> Void {
    { [weak self] in
      // Run after the node's own restore, on the batch's thread, with no lock held.
      guard let self else { return }
      guard
        let restored = self.slot.restore(
          previous, lineage: lineage, undoing: sequence, thread: thread)
      else { return }  // a later change of someone else stays
      self.slot.finishRestore(
        previous, sequence: restored.sequence, mustSave: restored.mustSave)
    }
  }

  /// A transaction's commit of one staged value (Batch/Staging.swift), in three steps:
  /// ``saveForCommit(_:)`` with no lock held, ``applyHoldingLock(_:to:in:)`` under the
  /// owner's value lock together with the commit's other writes, ``finishCommit(_:)`` once
  /// every lock is released.
  ///
  /// The save comes first, outside the locks: a backing's `save` is user code (a custom
  /// backing, UserDefaults and the observers it notifies at once), which may read the node
  /// being committed, or wait for a thread that does; under the commit's locks that would
  /// deadlock, and a slow disk would hold up every reader of the commit's nodes. So the
  /// place may hold the new value a moment before the nodes do; a write to the place that
  /// comes between is newer (a higher change number) and stays.
  final class CommitWrite {
    /// What the node takes.
    let value: Value
    let stored: PropertyListValue?
    let sequence: UInt64
    let undo: () -> Void
    let others: [any StorageSlotMember]
    let handler: ((Value, Value) -> Void)?
    /// Once applied, the value the node held: released with this, with no lock held (a
    /// deinit may run user code), and handed to the change handler.
    var replaced: Value?

    init(
      value: Value, stored: PropertyListValue?, saved: StorageSlot.Saved,
      undo: @escaping () -> Void, handler: ((Value, Value) -> Void)?
    ) {
      self.value = value
      self.stored = stored
      self.sequence = saved.sequence
      self.undo = undo
      self.others = saved.others
      self.handler = handler
    }
  }

  /// Saves `newValue` to the place; nil, reported, when it cannot be encoded (neither the
  /// node nor the place changes). Call with no lock held.
  func saveForCommit(_ newValue: Value) -> CommitWrite? {
    guard let (stored, value) = encode(newValue) else { return nil }
    let thread = ObjectIdentifier(ThreadState.current)
    let saved = slot.save(stored, from: self, thread: thread)
    let undo = restoring(
      saved.previous, lineage: saved.lineage, undoing: saved.sequence, thread: thread)
    return CommitWrite(
      value: value, stored: stored, saved: saved, undo: undo,
      handler: ownerLock.withLock { changeHandler })
  }

  /// With the owner's value lock held by the commit, inside its batch: gives the owner
  /// the saved value, unless it already holds a newer change of the place or an equal
  /// value, storing it and telling the core in one step (as
  /// `Stored.applyStagedHoldingLock` does). Returns whether the transaction must record
  /// the node.
  func applyHoldingLock(
    _ write: CommitWrite, to owner: Stored<Value>, in transaction: Transaction
  ) -> Bool {
    guard advance(to: write.sequence), !owner.isSame(owner.value, write.value) else {
      return false
    }
    let replaced = owner.value
    owner.storeValue(write.value)
    write.replaced = replaced
    return owner.madeSide()._withUnsafeGuaranteedRef { side in
      let before = OpenWrites.RestorePoint(
        value: replaced, revision: side.advanceRevision(),
        version: sg_node_version_unchecked(owner.node), undo: write.undo)
      GraphCore.wrote(sg_changed_unchecked(owner.node))
      return side.openWrites.add(
        transaction.id, before: before, revisionWritten: side.revision,
        versionWritten: sg_node_version_unchecked(owner.node))
    }
  }

  /// Once the commit released its locks: the place's other nodes take the value, then
  /// the change handler runs.
  func finishCommit(_ write: CommitWrite) {
    for member in write.others {
      member.receive(write.stored, sequence: write.sequence, isWrite: true)
    }
    if let handler = write.handler, let replaced = write.replaced { handler(replaced, write.value) }
  }

  func receive(_ stored: PropertyListValue?, sequence: UInt64, isWrite: Bool) {
    guard let owner = ownerLock.withLock({ owner }) else { return }
    take(value(of: stored), sequence: sequence, in: owner, isWrite: isWrite, undo: nil)
  }

  /// Gives the node change number `sequence` unless it holds a newer one, then calls the
  /// change handler if the value changed.
  private func take(
    _ value: Value, sequence: UInt64, in owner: Stored<Value>, isWrite: Bool,
    undo: (() -> Void)?
  ) {
    let handler = ownerLock.withLock { changeHandler }
    var oldValue: Value?
    owner.replace(
      with: value,
      isCurrent: {
        // Under the owner's value lock.
        guard self.advance(to: sequence) else { return false }
        if handler != nil, !owner.isSame(owner.value, value) { oldValue = owner.value }
        return true
      }, undo: undo, joinsBatch: isWrite)
    if let handler, let oldValue { handler(oldValue, value) }
  }

  func receiveRestored(_ stored: PropertyListValue?, sequence: UInt64) {
    guard let owner = ownerLock.withLock({ owner }) else { return }
    // A node that still has a write of the batch rolling back on this thread is restored
    // by that batch; taking the content now would make its rollback pass it by. (A
    // restore runs inside the rollback, on its thread: `Transaction.current` is that
    // batch, and its nodes' open writes go only when their own rollback ran.)
    if let transaction = Transaction.current,
      owner.lock.withLock({ owner.openWrites.newest(of: transaction.id) != nil })
    {
      return
    }
    take(value(of: stored), sequence: sequence, in: owner, isWrite: false, undo: nil)
  }

  /// Under the owner's value lock: whether change `newer` is newer than the value held.
  private func advance(to newer: UInt64) -> Bool {
    guard newer > sequence else { return false }
    sequence = newer
    return true
  }

  /// What the node reads for `stored`: the decoded value, or the declared value when the
  /// place holds nothing or something this type cannot read (reported, left untouched).
  private func value(of stored: PropertyListValue?) -> Value {
    guard let stored else { return defaultValue }
    do {
      return try codec.decode(stored)
    } catch {
      switch error {
      case .typeMismatch(let found):
        StorageDiagnostic.report(.typeMismatch, slot.backing.description, Value.self, "\(found)")
      case .undecodable(let detail):
        StorageDiagnostic.report(.undecodable, slot.backing.description, Value.self, detail)
      }
      return defaultValue
    }
  }
}
