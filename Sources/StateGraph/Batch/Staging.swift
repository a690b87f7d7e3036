import StateGraphCore

#if !canImport(Darwin)
  import Synchronization

  /// How many threads have a staged transaction open. Zero almost always, and then a read
  /// or write skips the thread-local look-up for one relaxed load. A thread's own increment
  /// is seen by its own later loads; another thread that reads a stale zero has no
  /// transaction open, which is what zero tells it. (Darwin: `Atomic` needs macOS 15, so
  /// there every read and write looks the thread's state up.)
  @usableFromInline let openStagings = Atomic<Int>(0)
#endif

// Staged transactions: the writes of a `withGraphTransaction` body are kept here, per
// thread, until the outermost body returns. The protocol (states, who moves them, why a
// commit is one step for readers and why nothing waits on it) is written down in
// docs/core-protocol.md, "Staged transactions".

/// One node's staged value. Non-generic base, so a level holds writes of any type. Touched
/// only by the transaction's thread, so its accesses skip the dynamic exclusivity checks.
@usableFromInline
class StagedWrite {
  /// The node's identity, by which a level finds its write.
  @usableFromInline let key: ObjectIdentifier
  /// The commit takes the value locks of the nodes in the order of this address.
  @usableFromInline let address: UInt
  /// A persisted node: saved before the commit takes any lock, applied with the others.
  @usableFromInline let isPersisted: Bool
  /// With the node's lock held: stores the value and tells the core; returns whether the
  /// batch log must record the node. A closure made where `Value` is known, so that the
  /// commit runs specialised code (through a generic class's method it would look the
  /// value's type metadata up at every call). Nil for a persisted node, applied through
  /// `applyPersistedHoldingLock`.
  @usableFromInline @exclusivity(unchecked) var applyHoldingLock: ((Transaction) -> Bool)?
  /// Set by the commit: the write was applied and the batch log must record the node.
  @exclusivity(unchecked) var mustRecord = false
  /// Cleared by the commit for a persisted value that could not be saved.
  @exclusivity(unchecked) var isSaved = true

  @inlinable
  init(key: ObjectIdentifier, address: UInt, isPersisted: Bool) {
    self.key = key
    self.address = address
    self.isPersisted = isPersisted
  }

  /// A persisted node's save, with no lock held; false when the value cannot be saved,
  /// and is then not applied.
  func saveBeforeLocking() -> Bool { fatalError("abstract") }
  func applyPersistedHoldingLock(_ transaction: Transaction) -> Bool { fatalError("abstract") }
  /// A persisted node, once every lock is released: the place's other nodes take the value.
  func finishAfterUnlocking() { fatalError("abstract") }
  func lockNode() { fatalError("abstract") }
  func unlockNode() { fatalError("abstract") }
  func record(in transaction: Transaction) { fatalError("abstract") }
  /// A node's own comparison (`shouldNotify`), run before the commit takes any lock.
  func decideOwnComparison() {}
}

@usableFromInline
final class StagedValue<Value>: StagedWrite {
  @usableFromInline let node: Stored<Value>
  /// The staged value; after the commit applied it, the value it replaced, released with
  /// this object once no lock is held.
  @usableFromInline @exclusivity(unchecked) var value: Value
  /// A persisted node's persistence, read once here: the commit needs it while it holds
  /// the node's lock, which reading `Stored.persistence` takes.
  @usableFromInline let persistence: StoredPersistence<Value>?
  /// A persisted node's save, made by the commit (see `StoredPersistence.CommitWrite`).
  @exclusivity(unchecked) var saved: StoredPersistence<Value>.CommitWrite?
  /// The node's commit, specialised, handed to the batch log (see `Transaction.record`):
  /// taken under the node's lock when the write is applied.
  @usableFromInline @exclusivity(unchecked) var commitHook: Unmanaged<CommitHook>?
  /// For a node with its own comparison: whether the staged value is the same as the
  /// committed one, decided before the commit locks anything (the comparison is user
  /// code, which may read other nodes of the commit).
  @usableFromInline @exclusivity(unchecked) var ownSame: Bool?

  @inlinable
  init(node: Stored<Value>, value: Value) {
    self.node = node
    self.value = value
    persistence = node.persistence
    let isPersisted = persistence != nil
    super.init(
      key: ObjectIdentifier(node),
      address: UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(node.node))),
      isPersisted: isPersisted)
    guard !isPersisted else { return }
    // Unowned: the closure lives in this object and runs only while the commit holds it.
    applyHoldingLock = { [unowned(unsafe) self] transaction in
      guard self.node.applyStagedHoldingLock(&self.value, ownSame: self.ownSame, in: transaction)
      else { return false }
      self.commitHook = self.node.madeCommitHook()
      return true
    }
  }

  override func saveBeforeLocking() -> Bool {
    saved = persistence!.saveForCommit(value)
    return saved != nil
  }

  override func applyPersistedHoldingLock(_ transaction: Transaction) -> Bool {
    guard persistence!.applyHoldingLock(saved!, to: node, in: transaction) else {
      return false
    }
    commitHook = node.madeCommitHook()
    return true
  }

  override func decideOwnComparison() {
    guard node.equality.isNodesOwn else { return }
    ownSame = node.equality.same(node.lock.withLock { node.value }, value)
  }

  override func finishAfterUnlocking() { persistence!.finishCommit(saved!) }
  override func lockNode() { node.lock.lock() }
  override func unlockNode() { node.lock.unlock() }
  override func record(in transaction: Transaction) {
    transaction.record(node, holding: nil, commit: commitHook)
  }
}

/// One level of a staged transaction on one thread: the writes its body made, and, for the
/// outermost level, what every level shares (computed values evaluated against the staged
/// state, work to run once the transaction ended). Touched only by its thread, so its
/// accesses skip the dynamic exclusivity checks.
@usableFromInline
final class Staging {
  @usableFromInline @exclusivity(unchecked) var parent: Staging?
  /// The writes of this level, in the order of each node's first write (the commit sorts
  /// them by address).
  @usableFromInline @exclusivity(unchecked) var writes: [StagedWrite] = []
  /// Each node's position in `writes`, once there are more than a few: most transactions
  /// write a handful of nodes, and scanning those beats hashing. Built lazily.
  @exclusivity(unchecked) var index: [ObjectIdentifier: Int] = [:]
  /// Root only: computed values evaluated against the staged state since the last write,
  /// by their `ComputeBox` (see StagedEvaluation.swift).
  @usableFromInline @exclusivity(unchecked) var computedValues: [ObjectIdentifier: Any] = [:]
  /// Root only: computeds being evaluated now, innermost last, to report a cycle rather
  /// than recurse, and to bound the depth.
  @exclusivity(unchecked) var evaluating: [ObjectIdentifier] = []
  /// Root only: how many writes all levels hold, so a read knows at once whether anything
  /// is staged.
  @usableFromInline @exclusivity(unchecked) var stagedCount = 0
  /// Root only: work to run once the outermost transaction ended (see `GraphRuntime`).
  @exclusivity(unchecked) var completions: [(_ sawRollback: Bool) -> Void] = []
  /// Root only: the C nodes a staged node reaches through dependent edges (computeds whose
  /// last run read a staged node, directly or not). Others are read through the core.
  @exclusivity(unchecked) var affected: Set<UInt> = []
  /// Root only: reads through the core in progress on this thread. Inside them the
  /// committed state is read, so that nothing staged reaches a shared cache.
  @usableFromInline @exclusivity(unchecked) var coreReads = 0
  /// Root only: how many times a read inside a core read met a node this transaction
  /// staged: that read's result is then not the staged view, and is evaluated again.
  @usableFromInline @exclusivity(unchecked) var stagedMetInCoreRead = 0
  /// Root only: keys of the completions asked for once.
  @exclusivity(unchecked) var keyedCompletions: [ObjectIdentifier: (_ sawRollback: Bool) -> Void] = [:]
  /// Root only: a level was discarded (its body threw).
  @exclusivity(unchecked) var sawDiscard = false
  /// Root only: `markAffected`'s buffers, kept so that marking allocates nothing.
  @exclusivity(unchecked) var pending: [OpaquePointer] = []
  @exclusivity(unchecked) var dependents: [OpaquePointer?] = []

  init(parent: Staging?) { self.parent = parent }

  /// Empties a level that ended, keeping its storage for the thread's next one (see
  /// `ThreadState.spareStagings`): a store mutation opens one each time.
  /// Each collection is emptied only when it holds something: even empty, the call costs
  /// a generic walk.
  func reset() {
    parent = nil
    if !writes.isEmpty { writes.removeAll(keepingCapacity: true) }
    if !index.isEmpty { index.removeAll(keepingCapacity: true) }
    if !computedValues.isEmpty { computedValues.removeAll(keepingCapacity: true) }
    if !evaluating.isEmpty { evaluating.removeAll(keepingCapacity: true) }
    if !affected.isEmpty { affected.removeAll(keepingCapacity: true) }
    if !completions.isEmpty { completions.removeAll(keepingCapacity: true) }
    if !keyedCompletions.isEmpty { keyedCompletions.removeAll() }
    stagedCount = 0
    coreReads = 0
    stagedMetInCoreRead = 0
    sawDiscard = false
  }

  /// The outermost level.
  @usableFromInline
  var root: Staging {
    var level = self
    while let parent = level.parent { level = parent }
    return level
  }

  /// This thread's innermost level, or nil outside staged transactions: one thread-local
  /// look-up, the whole cost of staging for code that never opens a transaction.
  /// Inlined into every read and write, so kept to a load and a branch; the look-up itself
  /// is out of line.
  @inlinable
  static var current: Staging? {
    #if !canImport(Darwin)
      if openStagings.load(ordering: .relaxed) == 0 { return nil }
    #endif
    return lookUp()
  }

  /// This thread's innermost level. Borrows the thread's state without retaining it, so the
  /// usual answer (nil) costs no reference counting.
  @usableFromInline @inline(never)
  static func lookUp() -> Staging? {
    ThreadState.withExisting { $0.staging }
  }

  /// The value staged for `node` by this level or an enclosing one, innermost first.
  @inlinable
  func stagedValue<Value>(of node: Stored<Value>) -> Value? {
    let id = ObjectIdentifier(node)
    var level: Staging? = self
    while let current = level {
      if let position = current.position(of: id) {
        return unsafeDowncast(current.writes[position], to: StagedValue<Value>.self).value
      }
      level = current.parent
    }
    return nil
  }

  /// The position of `id`'s write in `writes` at this level.
  @usableFromInline
  func position(of id: ObjectIdentifier) -> Int? {
    if writes.count <= 8 {
      for position in 0..<writes.count where writes[position].key == id { return position }
      return nil
    }
    // Writes are only ever appended: index the ones added since the last look.
    while index.count < writes.count { index[writes[index.count].key] = index.count }
    return index[id]
  }

  /// Keeps `value` as `node`'s value for this level. Inlinable, so that the write's
  /// closure (see `StagedWrite`) is made specialised.
  @inlinable
  func stage<Value>(_ value: Value, for node: Stored<Value>) {
    let root = self.root
    if !root.computedValues.isEmpty {
      root.computedValues.removeAll(keepingCapacity: true)  // they may have read `node`
    }
    if let position = position(of: ObjectIdentifier(node)) {
      unsafeDowncast(writes[position], to: StagedValue<Value>.self).value = value
      return
    }
    writes.append(StagedValue(node: node, value: value))
    root.stagedCount += 1
    root.markAffected(from: node.node)
  }

  /// Adds every node `source` reaches through dependent edges to `affected`.
  /// O(the nodes reached that were not yet), as marking is; allocates nothing once the
  /// buffers grew.
  @usableFromInline
  func markAffected(from source: OpaquePointer) {
    if dependents.isEmpty { dependents = [OpaquePointer?](repeating: nil, count: 16) }
    pending.append(source)
    while let node = pending.popLast() {
      var count = 0
      guard sg_node_dependents(node, &dependents, dependents.count, &count) == 0, count > 0
      else { continue }
      if count > dependents.count {
        dependents = [OpaquePointer?](repeating: nil, count: count)
        guard sg_node_dependents(node, &dependents, dependents.count, &count) == 0 else { continue }
      }
      for position in 0..<min(count, dependents.count) {
        guard let dependent = dependents[position] else { continue }
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(dependent)))
        if affected.insert(address).inserted { pending.append(dependent) }
      }
    }
  }

  /// Whether `node` may read a staged node (see `affected`).
  func isAffected(_ node: OpaquePointer) -> Bool {
    affected.contains(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(node))))
  }

  /// A nested level whose body returned: its writes become the enclosing level's.
  func merge(into parent: Staging) {
    for write in writes {
      if let position = parent.position(of: write.key) {
        parent.writes[position] = write
        parent.root.stagedCount -= 1
      } else {
        parent.writes.append(write)
      }
    }
  }

  /// A level whose body threw: its writes are dropped, and the computed values that may
  /// have read them.
  func discard() {
    let root = self.root
    root.stagedCount -= writes.count
    root.computedValues.removeAll()
    root.sawDiscard = true
  }

  /// The outermost level's body returned: applies every write as one step (see
  /// docs/core-protocol.md), then runs the completions. Called with the thread's staging
  /// already cleared, so the writes below apply rather than stage.
  func commit() {
    // Inside a batch already (a store's mutation opens one): applied into it directly.
    if Transaction.current != nil { return apply() }
    withGraphBatch { apply() }
  }

  /// Applies `writes`, sorting them in place: the level has ended.
  private func apply() {
    guard let transaction = Transaction.current else { return }
    // Persisted nodes save first, with no lock held: a save is user code (see
    // `StoredPersistence.CommitWrite`). A value that cannot be saved is not applied.
    for write in writes where write.isPersisted { write.isSaved = write.saveBeforeLocking() }
    if writes.count > 1 { writes.sort { $0.address < $1.address } }
    // Every lock, in address order, across every store and `sg_changed`: inside the batch
    // these run no user code (see the protocol document for why readers then never keep
    // a value mixing two moments). Persisted nodes take their value here too, so no
    // reader sees one of them new beside an in-memory node still old.
    for write in writes { write.lockNode() }
    for position in 0..<writes.count {
      let write = writes[position]
      write.mustRecord =
        if let apply = write.applyHoldingLock { apply(transaction) } else {
          write.isSaved && write.applyPersistedHoldingLock(transaction)
        }
      if position == 0, let pause = ThreadState.current.pauseInCommitForTesting { pause() }
    }
    for write in writes.reversed() { write.unlockNode() }
    for write in writes where write.mustRecord { write.record(in: transaction) }
    for write in writes where write.isPersisted && write.isSaved { write.finishAfterUnlocking() }
    // The replaced values now sit in the writes, released with them, unlocked.
  }

  /// Runs the completions of the outermost level, which has ended.
  func runCompletions() {
    while !completions.isEmpty || !keyedCompletions.isEmpty {
      let pending = completions + keyedCompletions.values
      completions.removeAll()
      keyedCompletions.removeAll()
      for completion in pending { completion(sawDiscard) }
    }
  }
}
