import Observation
import StateGraphCore

/// A node holding a value that you set: the source of truth of a state graph.
///
/// ```swift
/// let counter = Stored(wrappedValue: 0)
/// counter.wrappedValue += 1
/// ```
///
/// Reading `wrappedValue` inside a ``Computed`` closure (or a tracking
/// closure) records a dependency. Writing a value equal to the current one
/// (`Equatable` values; class instances by identity) notifies nobody.
///
/// A node can also keep its value in UserDefaults or a store of your own:
/// `Stored(wrappedValue: "light", backed: .userDefaults(key: "theme"))`
/// (see ``GraphStorageBacking``).
///
/// Thread safety: any thread may read and write. Observers run after the
/// write returns, or at the end of the outermost ``withGraphBatch(_:)``. Inside a
/// ``withGraphTransaction(_:)`` a write is staged: only that thread sees it until the
/// transaction commits.
/// The graph keeps no strong reference to a node: it lives as long as you
/// (or the closures of dependent nodes) hold it. The node is `Sendable`
/// when its `Value` is: a value that is not would cross threads with it.
public final class Stored<Value> {
  // `@usableFromInline` below: the accessors are `@inlinable`, so a client
  // module compiles them specialised for its `Value` (no generic value
  // witnesses, no calls for the lock).
  // The fields a plain node needs, and no more (56 bytes for an `Int`): the rest waits
  // in `side` until an observer, a batch, a handler or a backing asks for it.
  /// Guarded by `lock`. First, so that its place in the object follows from its alignment
  /// alone (`valueAddress`).
  @usableFromInline @exclusivity(unchecked) var value: Value
  @usableFromInline let node: OpaquePointer
  @usableFromInline let lock = ValueLock()
  /// Nil for almost every node, so a write checks it and goes on. Made under `lock`,
  /// never replaced; read under `lock`.
  @usableFromInline @exclusivity(unchecked) var side: StoredSideRecord<Value>?
  @usableFromInline let equality: Equality.Comparator<Value>

  /// Creates a stored node.
  /// - Parameters:
  ///   - name: a debug name, shown in cycle reports and graph snapshots.
  ///   - wrappedValue: the initial value.
  ///   - file: where the node is created, for cycle reports and snapshots.
  ///   - line: the line of `file`.
  public convenience init(
    name: String? = nil, wrappedValue: Value, file: StaticString = #fileID, line: UInt = #line
  ) {
    self.init(name: name, wrappedValue: wrappedValue, persistence: nil, file: file, line: line)
  }

  /// Creates a stored node that decides itself which writes are changes: `shouldNotify`
  /// gets the value held and the value written, and answers whether dependents and
  /// observers hear of it. Either way the node takes the value written.
  ///
  /// ```swift
  /// let temperature = Stored(wrappedValue: 20.0) { old, new in abs(new - old) >= 0.5 }
  /// temperature.wrappedValue = 20.2  // kept, but nobody recomputes or is told
  /// ```
  ///
  /// It runs at every write with no lock of the node held (a write racing with it may
  /// land first), and at a transaction's commit before anything is locked, seeing the
  /// whole pending commit: it may read nodes.
  public convenience init(
    name: String? = nil, wrappedValue: Value, file: StaticString = #fileID, line: UInt = #line,
    shouldNotify: @escaping @Sendable (_ oldValue: Value, _ newValue: Value) -> Bool
  ) {
    self.init(
      name: name, wrappedValue: wrappedValue, persistence: nil,
      equality: Equality.Comparator(same: { !shouldNotify($0, $1) }, isNodesOwn: true),
      file: file, line: line)
  }

  /// A node whose writes a rollback undoes even when it was made inside the batch or
  /// transaction (Batch/MadeInside.swift): for a store whose own bookkeeping, such as
  /// which of its nodes holds what, the rollback restores.
  package convenience init(
    undoableWhenMadeInside name: String?, wrappedValue: Value, file: StaticString = #fileID,
    line: UInt = #line
  ) {
    self.init(
      name: name, wrappedValue: wrappedValue, persistence: nil, keptWhenMadeInside: false,
      file: file, line: line)
  }

  init(
    name: String?, wrappedValue: Value, persistence: StoredPersistence<Value>?,
    equality: Equality.Comparator<Value>? = nil, keptWhenMadeInside: Bool = true,
    file: StaticString, line: UInt
  ) {
    self.value = wrappedValue
    self.equality = equality ?? Equality.comparator(for: Value.self)
    if let persistence {
      let side = StoredSideRecord<Value>()
      side.persistence = persistence
      self.side = side
    }
    defer { if persistence == nil, keptWhenMadeInside { noteIfMadeInsideUndo() } }
    var created: OpaquePointer?
    GraphCore.info(name: name, file: file, line: line) { info in
      _ = sg_stored_new(GraphCore.graph, info, &created)
    }
    self.node = created!
    // Graph snapshots reach the value through the context (Introspection/).
    sg_stored_set_context_unchecked(node, Unmanaged.passUnretained(self).toOpaque())
    assert(
      MemoryLayout<Value>.size == 0  // nothing to copy: its address is nowhere in particular
        || withUnsafeMutablePointer(to: &value) { UnsafeMutableRawPointer($0) } == valueAddress)
  }

  deinit { sg_node_destroy(node) }

  /// The current value. Reading it inside a computation records a
  /// dependency; setting it notifies dependents when the value changed.
  /// A persisted node saves every value set here at once.
  @inlinable
  public var wrappedValue: Value {
    get {
      if let staging = Staging.current { return stagedRead(staging) }
      let isOutside = GraphCore.readSayingIfOutside(node)
      // Inside a computation nothing needs the lock but the copy: a plain value is copied
      // without it (a write that slips in after the core's read marks the computation).
      if !isOutside, let current = valueWithoutLocking() { return current }
      return lockedValue(registering: isOutside)
    }
    set {
      if let staging = Staging.current, !isMadeInsideUndo { return stage(newValue, in: staging) }
      lock.lock()
      // Optional chains rather than a bound `side`: a binding would retain it.
      if side?.didSetHandler != nil {
        lock.unlock()
        assignReportingDidSet(newValue)  // out of line: the rare path
      } else if let persistence = side?.persistence {
        lock.unlock()
        persistence.write(newValue, to: self)  // saves, then comes back through `replace`
      } else {
        replaceHoldingLock(with: newValue)  // the common case: one lock for the whole write
      }
    }
  }

  /// Where `value` lives: the first stored property, right after the object's header,
  /// at its alignment. Computed rather than taken with `&value`, an access the thread
  /// sanitizer would count as a write racing with the copies readers make without the
  /// lock (the copies themselves are atomic). `init` checks it.
  @inlinable
  var valueAddress: UnsafeMutableRawPointer {
    let alignment = MemoryLayout<Value>.alignment
    let offset = (2 * MemoryLayout<Int>.size + alignment - 1) & ~(alignment - 1)
    return Unmanaged.passUnretained(self).toOpaque() + offset
  }

  /// Stores `newValue`, with `lock` held: a plain value with atomic stores, for the
  /// readers that copy it without the lock.
  @inlinable
  func storeValue(_ newValue: Value) {
    if PlainValue<Value>.isPlain {
      PlainValue.store(newValue, at: valueAddress)
    } else {
      value = newValue
    }
  }

  /// The value, copied without taking `lock`; nil when a writer may have held it
  /// meanwhile, or when the value is not plain: the caller takes the lock then.
  @inlinable
  func valueWithoutLocking() -> Value? {
    guard PlainValue<Value>.isPlain else { return nil }
    return PlainValue.copy(at: valueAddress, guardedBy: lock)
  }

  /// The value read under `lock`, registered with Observation for a read outside
  /// computations that Observation tracks. Out of line: the getter's common path, inlined
  /// into callers, stays small.
  @inlinable @inline(never)
  func lockedValue(registering isOutside: Bool) -> Value {
    lock.lock()
    // Made before the value is read, under the same lock: a write that found none (and
    // told Observation nothing) came before this read, which sees its value. The probe
    // runs no user code.
    let observation =
      isOutside && (side?.observation != nil || TrackingProbe.isTracking())
      ? madeObservation() : nil
    let current = value
    lock.unlock()
    observation?._withUnsafeGuaranteedRef { $0.access() }
    return current
  }

  /// Whether two values are the same (see ``Equality``).
  @inlinable
  func isSame(_ lhs: Value, _ rhs: Value) -> Bool { equality(lhs, rhs) }

  /// Where the value persists; nil for a node that lives in memory only
  /// (see Storage/ and `init(name:wrappedValue:backed:)`). Takes `lock`.
  @usableFromInline
  var persistence: StoredPersistence<Value>? { lock.withLock { side?.persistence } }

  /// The open writes of batches, for a check under `lock` (Storage/).
  var openWrites: OpenWrites<Value> { side?.openWrites ?? OpenWrites() }

  /// The node's side record, made on first use. Under `lock`. Unmanaged: the node holds
  /// it for its whole life, so the caller needs no reference of its own.
  @inlinable
  func madeSide() -> Unmanaged<StoredSideRecord<Value>> {
    if side == nil { side = StoredSideRecord<Value>() }
    return .passUnretained(side.unsafelyUnwrapped)
  }

  /// A write through `wrappedValue`, without the `onDidSet` handler.
  @inlinable
  func assign(_ newValue: Value) {
    if let persistence {
      persistence.write(newValue, to: self)  // saves, then comes back through `replace`
    } else {
      replace(with: newValue)
    }
  }

  /// Sets the value and tells dependents and Observation, unless it equals the
  /// current one. Persisted nodes also pass `isCurrent`, checked under the value
  /// lock, to drop a value that arrives after a newer one; `undo`, run after the
  /// value's restore when the enclosing batch rolls back; and `joinsBatch: false`
  /// for changes found in the backing, which no batch of this thread can undo.
  @inlinable
  func replace(
    with newValue: Value, isCurrent: (() -> Bool)? = nil, undo: (() -> Void)? = nil,
    joinsBatch: Bool = true
  ) {
    lock.lock()
    replaceHoldingLock(with: newValue, isCurrent: isCurrent, undo: undo, joinsBatch: joinsBatch)
  }

  /// ``replace(with:isCurrent:undo:joinsBatch:)`` with `lock` already held; returns with
  /// it released.
  @inlinable
  func replaceHoldingLock(
    with newValue: Value, isCurrent: (() -> Bool)? = nil, undo: (() -> Void)? = nil,
    joinsBatch: Bool = true
  ) {
    // The lock makes the comparison, the store and the new revision one step; no user
    // code runs under it (`isCurrent` is the persistence's own bookkeeping).
    // Observation hears `willSet` before the value is stored, as from an
    // `@Observable` class: its onChange reads the old value. That is user
    // code, so the lock is dropped around it and the checks below run after.
    // A registrar, once made, is never replaced: the one told here is the one
    // a reader found, and a reader arriving later reads the new value.
    // A batch's write is announced at its end; one outside its undo is a plain write.
    var batch = joinsBatch ? Transaction.currentUnretained : nil
    if batch != nil, isMadeInsideUndo { batch = nil }
    // A node's own comparison is user code (it may read other nodes): it runs with the
    // lock let go, against the value held then.
    var ownSame: Bool?
    if equality.isNodesOwn {
      let held = value
      lock.unlock()
      ownSame = equality.same(held, newValue)
      lock.lock()
    }
    func same() -> Bool { ownSame ?? isSame(value, newValue) }
    var announced: NodeObservation?
    if let observation = side?.observation, !same(), batch == nil {
      lock.unlock()
      observation.willSet()
      announced = observation
      lock.lock()
    }
    if let isCurrent, !isCurrent() {
      lock.unlock()
      announced?.didSet()  // an announced write that lost a race still ends
      return
    }
    if same() {
      // Not a change: nobody is told and nothing is logged, but the node takes the value,
      // as a plain property would (for a type whose `==` looks at part of it, the newest).
      // Released after unlock: a deinit may run user code.
      let replaced = value
      storeValue(newValue)
      lock.unlock()
      announced?.didSet()
      withExtendedLifetime(replaced) {}
      return
    }
    let oldValue = value  // released after unlock: a deinit may run user code
    storeValue(newValue)
    if let transaction = batch {
      let revisionBefore = madeSide()._withUnsafeGuaranteedRef { $0.advanceRevision() }
      transaction._withUnsafeGuaranteedRef {
        changeInBatch($0, from: oldValue, revisionBefore: revisionBefore, undo: undo)
      }
    } else {
      side?.advanceRevision()
      // The version moves with the value, under the lock; the effects run after it.
      let marked = sg_write_begin_unchecked(node)
      lock.unlock()
      publish(marked, announced)
    }
  }

  /// A read inside a staged transaction of this thread: the staged value, or the committed
  /// one, with no Observation registration (see Batch/Staging.swift).
  @usableFromInline
  func stagedRead(_ staging: Staging) -> Value {
    let root = staging.root
    if root.stagedCount > 0, let staged = staging.stagedValue(of: self) {
      // Inside a read through the core, the committed value: the result may be cached.
      guard root.coreReads > 0 else { return staged }
      root.stagedMetInCoreRead += 1
    }
    GraphCore.read(node)
    return lock.withLock { value }
  }

  /// A write inside a staged transaction of this thread: kept by the transaction, applied
  /// at its commit. The `onDidSet` handler runs now, with the values this thread sees.
  @inlinable
  func stage(_ newValue: Value, in staging: Staging) {
    guard let handler = lock.withLock({ side?.didSetHandler }) else {
      return staging.stage(newValue, for: self)
    }
    let oldValue = stagedRead(staging)
    staging.stage(newValue, for: self)
    handler(oldValue, newValue)
  }

  /// A staged write applied at a transaction's commit, with `lock` held by the commit
  /// (which releases it) inside the commit's batch: stores the value and tells the core in
  /// one step, as ``changeInBatch(_:from:revisionBefore:undo:)`` does. Returns whether
  /// `transaction` must record the node; `staged` is left holding the replaced value,
  /// released by the caller once no lock is held (a deinit may run user code).
  @inlinable
  func applyStagedHoldingLock(
    _ staged: inout Value, ownSame: Bool?, in transaction: Transaction
  ) -> Bool {
    if ownSame ?? isSame(value, staged) {  // kept without notifying, as a plain write (`replaceHoldingLock`)
      let kept = value
      storeValue(staged)
      staged = kept
      return false
    }
    let oldValue = value
    storeValue(staged)
    staged = oldValue
    return madeSide()._withUnsafeGuaranteedRef { side in
      let revisionBefore = side.advanceRevision()
      let before = OpenWrites.RestorePoint(
        value: oldValue, revision: revisionBefore, version: sg_node_version_unchecked(node),
        undo: nil)
      GraphCore.wrote(sg_changed_unchecked(node))
      return side.openWrites.add(
        transaction.id, before: before, revisionWritten: side.revision,
        versionWritten: sg_node_version_unchecked(node))
    }
  }

  /// The node's Observation registrar, kept at the first tracked read from the registrar
  /// it probed with. Under `lock`. Unmanaged: never replaced, it lives as long as the
  /// node, which the reader holds.
  @inlinable
  func madeObservation() -> Unmanaged<NodeObservation> {
    madeSide()._withUnsafeGuaranteedRef { side in
      if side.observation == nil { side.observation = TrackingProbe.takeRegistrar() }
      return .passUnretained(side.observation.unsafelyUnwrapped)
    }
  }

  /// A change inside a batch of this thread. Called with `lock` held (the new value is
  /// stored, the side record made); returns with it released. The version moves in the same step as the value:
  /// `sg_changed` inside a batch runs no effect, watcher or compute callback and the
  /// core's lock is never held while user code runs, so holding `lock` across it cannot
  /// deadlock, and no other thread can see the new value under the old version or slip a
  /// write in between. Inlinable, so that the log's bookkeeping runs specialised for
  /// `Value`: generic, every call asked the runtime for the log's type metadata (half
  /// of a batch's time).
  @inlinable
  func changeInBatch(
    _ transaction: Transaction, from oldValue: Value, revisionBefore: UInt64,
    undo: (() -> Void)?
  ) {
    let before = OpenWrites.RestorePoint(
      value: oldValue, revision: revisionBefore, version: sg_node_version_unchecked(node),
      undo: undo)
    GraphCore.changed(node)
    let side = madeSide()
    let isFirst = side._withUnsafeGuaranteedRef {
      $0.openWrites.add(
        transaction.id, before: before, revisionWritten: $0.revision,
        versionWritten: sg_node_version_unchecked(node))
    }
    // Not returned from the closure above: a closure passed out through its generic
    // result would be wrapped in a thunk, an allocation per write.
    let commit = isFirst ? madeCommitHook() : nil
    lock.unlock()
    // Observation hears of it when the outermost batch commits, or never.
    if isFirst { transaction.record(self, holding: nil, commit: commit) }
  }

  /// The node's `commitHook`, made on first use, unretained: the transaction that calls
  /// it holds the node, which holds its side record. Under `lock`, with the side record
  /// made.
  @inlinable
  func madeCommitHook() -> Unmanaged<CommitHook> {
    if let commitHook = side.unsafelyUnwrapped.commitHook { return .passUnretained(commitHook) }
    // Both unmanaged: the side record keeps this closure, so a strong capture of it would
    // be a cycle that outlives the node; and borrowing them counts no references.
    let node = Unmanaged.passUnretained(self)
    let record = Unmanaged.passUnretained(side.unsafelyUnwrapped)
    let made: (ObjectIdentifier) -> Void = { transaction in
      node._withUnsafeGuaranteedRef { node in
        record._withUnsafeGuaranteedRef { side in
          node.lock.lock()
          side.openWrites.drop(transaction)
          // Never replaced once made: the record holds it as long as the node lives.
          let registrar = side.observation.map { Unmanaged.passUnretained($0) }
          node.lock.unlock()
          registrar?._withUnsafeGuaranteedRef { $0.didChange() }
        }
      }
    }
    let hook = CommitHook(made)
    side.unsafelyUnwrapped.commitHook = hook
    return .passUnretained(hook)
  }

  /// Runs what a change made outside a batch reached (its version moved under `lock`)
  /// and tells Observation; out of line, as it runs no value-specific code.
  /// `announced` heard `willSet` before the store
  /// and gets its `didSet` after the graph's handlers, so a dependent computed it
  /// reads is already marked.
  @usableFromInline
  func publish(_ marked: Int32, _ announced: NodeObservation?) {
    GraphCore.handleWrite(marked, of: node)
    GraphCore.wrote(sg_write_end())  // may run effects: no lock held
    announced?.didSet()
  }

  /// The value, for a graph snapshot (Introspection/GraphSnapshot.swift).
  func snapshotValue() -> Any? { lock.withLock { value } }

}

extension Stored: Restorable {
  @usableFromInline
  func rollBack(_ transaction: ObjectIdentifier) {
    // Check, restore and version change in one step, so that no other thread's write
    // can come between them; inside the batch, so neither `sg_rollback` nor
    // `sg_changed` runs user code under the lock. Backing undos run after it.
    lock.lock()
    guard let side else { return lock.unlock() }  // a node with open writes has one
    var rolledBack: [Value] = []  // released after unlock: a deinit may run user code
    var undos: [() -> Void] = []
    while let write = side.openWrites.popNewest(of: transaction) {
      guard side.revision == write.revisionWritten else {
        side.openWrites.bypass(write)  // written since: the later value stays
        continue
      }
      rolledBack.append(value)
      storeValue(write.before.value)
      side.revision = write.before.revision
      if sg_node_version_unchecked(node) == write.versionWritten {
        _ = sg_rollback(node, write.before.version)
      } else {
        // The version moved since without the value (a rollback on another thread put
        // it back): the old value comes back as a new change instead.
        GraphCore.wrote(sg_changed_unchecked(node))
      }
      if let undo = write.before.undo { undos.append(undo) }
    }
    lock.unlock()
    withExtendedLifetime(rolledBack) {}
    for undo in undos { undo() }
  }

  @usableFromInline
  func transfer(from child: ObjectIdentifier, to parent: ObjectIdentifier) {
    // Bookkeeping only, under the lock that guards it.
    lock.withLock { side?.openWrites.transfer(from: child, to: parent) }
  }

  /// An observer may have read the node since it changed inside the batch,
  /// so it is looked up now.
  @usableFromInline
  func batchDidCommit(_ transaction: ObjectIdentifier) {
    // Bookkeeping only, under the lock that guards it; Observation is told after.
    let registrar = lock.withLock { () -> NodeObservation? in
      side?.openWrites.drop(transaction)
      return side?.observation
    }
    registrar?.didChange()
  }
}

/// Safe to share between threads when the value is: `value` and `side` (and
/// every field of the side record) are read and written only under `lock`; the other
/// stored properties are immutable after `init`; the C node is the
/// core's, which guards it with the graph lock. A value read on one thread and written on another
/// is handed over whole under the lock, so it must itself be `Sendable`.
extension Stored: @unchecked Sendable where Value: Sendable {}
