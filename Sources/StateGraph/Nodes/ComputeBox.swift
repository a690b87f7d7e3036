import Observation
import StateGraphCore

/// What the C node of a ``Computed`` points at: the closure, the cached
/// value and, once observed, the Observation registrar. The C node retains it (released by
/// its destroy callback), so a callback never meets freed memory, even while the `Computed`
/// itself goes away on another thread. Non-generic base: one C thunk serves every type.
@usableFromInline
class ComputeBox {
  /// Runs the computation and stores its value. Made by the typed box's `@inlinable`
  /// init, so it is compiled, specialised, where `Value` is known (a method override
  /// would always run the generic code of this module); it captures nothing, so a
  /// specialised one allocates no context.
  @usableFromInline let run: (ComputeBox) -> Int32
  /// Set once, right after the C node is made, before the box is shared.
  @usableFromInline @exclusivity(unchecked) var node: OpaquePointer?
  @usableFromInline let lock = ValueLock()
  /// Made by the first read Observation tracks (``TrackingProbe``), which also gives the
  /// C node its watcher: a node nobody observes costs no registrar (three allocations)
  /// and no watcher call per change. Guarded by `lock`; never replaced.
  @usableFromInline @exclusivity(unchecked) var observation: NodeObservation?

  @usableFromInline
  init(run: @escaping (ComputeBox) -> Int32) { self.run = run }

  /// Creates the C node, which retains this box until it is destroyed.
  @usableFromInline
  final func register(name: String?, file: StaticString, line: UInt) {
    let context = Unmanaged.passRetained(self).toOpaque()
    var created: OpaquePointer?
    GraphCore.info(name: name, file: file, line: line) { info in
      _ = sg_computed_new(
        GraphCore.graph, info, Trampolines.compute, context, Trampolines.release, &created)
    }
    node = created
  }

  /// After a probe that found this read tracked: the node keeps the registrar the probe
  /// read, as its own, with its watcher set under `lock` (a reader that finds the
  /// registrar finds the watcher set, so the arm of its read is never lost); or, when
  /// another thread's tracked read gave it one first, beside it: left with the thread,
  /// it would keep the tracking's `onChange` after the node went.
  @usableFromInline
  final func keepProbedRegistrar() {
    let probed = TrackingProbe.takeRegistrar()
    lock.lock()
    defer { lock.unlock() }
    if let observation {
      observation.keep(probed)
    } else {
      observation = probed
      sg_node_set_watcher(node, Trampolines.watch)
    }
  }

  /// The core's watcher, set with the registrar: the value may have changed (Observation/).
  /// Reads `observation` without `lock`: it was stored before the watcher was set, and the
  /// core calls a watcher only once a read armed it, each step under the graph lock, so the
  /// store comes before this read; it is never replaced.
  final func valueDidChange() {
    Unmanaged.passUnretained(observation.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
      $0.didChange()
    }
  }
  /// The cached value, for a graph snapshot (Introspection/GraphSnapshot.swift).
  func snapshotValue() -> Any? { nil }
}

/// `@unchecked Sendable`: the C node hands the box to whichever thread computes or reads;
/// `storage` (the value and the revisions beside it) and `observation` are written only
/// under `lock`, and read under it but for a plain value's copies (`currentAfterRead`) and
/// the registrar once the core says the watcher is set (`observedCurrent`); the rest is
/// immutable after `init` (`node` is set before the box is shared). Internal: only
/// `Computed` (which is `Sendable` only for `Sendable` values) hands out what it holds.
@usableFromInline
final class TypedComputeBox<Value>: ComputeBox, @unchecked Sendable {
  /// The cached value; nil until the first run (or the placeholder). A pointer rather
  /// than an inline `Value?`: code that runs unspecialised (observers' reads of a
  /// generic node, the deinit) would look up `Optional<Value>`'s metadata at every
  /// access, about 300 instructions. Its block also holds, after the value, what the
  /// node keeps for rollbacks (``revisions``): a pointer fewer in the box, and for a
  /// value of up to 16 bytes no bigger a block (malloc's smallest chunk holds both).
  @usableFromInline @exclusivity(unchecked) var storage: UnsafeMutablePointer<Value>?
  @usableFromInline let equality: Equality.Comparator<Value>
  /// The computation, also run directly against a transaction's staged values
  /// (Batch/Staging.swift).
  @usableFromInline let body: @Sendable (GraphContext) -> Value

  @inlinable
  init(initialValue: Value?, body: @escaping @Sendable (GraphContext) -> Value) {
    self.body = body
    if let initialValue { storage = Self.makeStorage(initialValue) }
    self.equality = Equality.comparator(for: Value.self)
    // The box comes as the argument: nothing captured, so no cycle and no context.
    super.init { box in
      let typed = unsafeDowncast(box, to: TypedComputeBox<Value>.self)
      return typed.store(typed.body(GraphContext()))
    }
  }

  deinit {
    guard let storage else { return }
    // Released as any object: the deinit runs unspecialised, and naming the revisions'
    // own type here would look its metadata up.
    if let word = Self.revisionsWord(in: storage) {
      Unmanaged<AnyObject>.fromOpaque(word).release()
    }
    storage.deinitialize(count: 1)
    UnsafeMutableRawPointer(storage).deallocate()
  }

  /// Where the revisions sit in the value's block: right after the value, as a retained
  /// reference or nil in a raw word (binding memory to a generic class type would look
  /// its metadata up at every creation).
  @inlinable
  static var revisionsOffset: Int {
    let alignment = MemoryLayout<UnsafeRawPointer?>.alignment
    return (MemoryLayout<Value>.size + alignment - 1) & ~(alignment - 1)
  }

  /// A block for the cached value and, after it, no revisions yet.
  @inlinable
  static func makeStorage(_ value: Value) -> UnsafeMutablePointer<Value> {
    let block = UnsafeMutableRawPointer.allocate(
      byteCount: revisionsOffset + MemoryLayout<UnsafeRawPointer?>.size,
      alignment: Swift.max(
        MemoryLayout<Value>.alignment, MemoryLayout<UnsafeRawPointer?>.alignment))
    (block + revisionsOffset).storeBytes(of: nil, as: UnsafeRawPointer?.self)
    return block.initializeMemory(as: Value.self, to: value)
  }

  @inlinable
  static func revisionsWord(in storage: UnsafeMutablePointer<Value>) -> UnsafeRawPointer? {
    (UnsafeMutableRawPointer(storage) + revisionsOffset).load(as: UnsafeRawPointer?.self)
  }

  /// The revisions in the block of `storage`, unretained: the block holds them.
  @inlinable
  static func revisions(
    in storage: UnsafeMutablePointer<Value>
  ) -> Unmanaged<Revisions<Value>>? {
    guard let word = revisionsWord(in: storage) else { return nil }
    return Unmanaged.fromOpaque(word)
  }

  /// Gives a block without revisions its revisions, retained by the block.
  @usableFromInline
  static func setRevisions(
    _ revisions: Revisions<Value>, in storage: UnsafeMutablePointer<Value>
  ) {
    (UnsafeMutableRawPointer(storage) + revisionsOffset)
      .storeBytes(of: Unmanaged.passRetained(revisions).toOpaque(), as: UnsafeRawPointer?.self)
  }

  /// What the node keeps for rollbacks, made by the first batch that changes its value
  /// (which has a value then). Under `lock`.
  @usableFromInline
  var revisions: Revisions<Value>? {
    guard let storage else { return nil }
    return Self.revisions(in: storage)?.takeUnretainedValue()
  }

  /// Whether the node has a value yet. Under `lock`.
  @usableFromInline
  var hasValue: Bool { storage != nil }

  /// The cached value; only read after the C core brought the node up to date.
  @inlinable
  var current: Value {
    lock.lock()
    defer { lock.unlock() }
    return storage.unsafelyUnwrapped.pointee
  }

  /// ``current`` after the core's read brought the node up to date (inside a computation,
  /// or outside one with its watcher armed): a plain value is copied without the lock (see
  /// `PlainValue`). The block is there and stays: it was made before the run that the
  /// core's read waited for, and is never replaced.
  @inlinable
  var currentAfterRead: Value {
    if PlainValue<Value>.isPlain,
      let value = PlainValue<Value>.copy(at: storage.unsafelyUnwrapped, guardedBy: lock)
    {
      return value
    }
    return current
  }

  /// Replaces the cached value, with `lock` held; returns the one it replaced. A plain
  /// value is stored with atomic stores, for readers that copy it without the lock.
  @inlinable
  func replaceValue(in storage: UnsafeMutablePointer<Value>, with newValue: Value) -> Value {
    guard PlainValue<Value>.isPlain else {
      let oldValue = storage.move()
      storage.initialize(to: newValue)
      return oldValue
    }
    let oldValue = storage.pointee
    PlainValue.store(newValue, at: storage)
    return oldValue
  }

  /// The value, for a read outside a computation after the core brought the node up to
  /// date and armed its watcher (under one graph lock, so no write slipped in between):
  /// the read registers with Observation. The registrar was made before the watcher was
  /// set, which the core's answer says this thread sees, and is never replaced: no lock.
  /// Out of line, as the rare path is: the getter inlined into computations stays small.
  @inlinable @inline(never)
  func observedCurrent() -> Value {
    let observation = Unmanaged.passUnretained(self.observation.unsafelyUnwrapped)
    let value = currentAfterRead
    observation._withUnsafeGuaranteedRef { $0.access() }
    return value
  }

  /// A read outside computations that found no watcher to arm. When Observation tracks
  /// it, the watcher is set now with the registrar (or found set by another thread) and
  /// armed by reading again. Out of line: the getter inlined into computations stays
  /// small.
  @inlinable @inline(never)
  func unwatchedCurrent() -> Value {
    guard TrackingProbe.isTracking() else { return currentAfterRead }
    keepProbedRegistrar()
    GraphCore.readArming(node.unsafelyUnwrapped)
    return observedCurrent()
  }

  /// Keeps a computed value, answering whether it differs from the last one.
  /// Runs inside the node's computation: the core lets one thread at a time compute a
  /// node and gives it its new version after this returns.
  @inlinable
  func store(_ newValue: Value) -> Int32 {
    // The lock makes the comparison, the store and the new revision one step against
    // readers and rollbacks; no user code runs under it.
    lock.lock()
    guard let storage else {
      self.storage = Self.makeStorage(newValue)
      lock.unlock()
      return Int32(SG_CHANGED)
    }
    if equality(storage.pointee, newValue) {
      // No change for the graph, but the node keeps the value just made, as a plain
      // property would: for a type whose `==` looks at part of it (an id), readers get
      // the newest. Released after unlock: a deinit may run user code.
      let replaced = replaceValue(in: storage, with: newValue)
      lock.unlock()
      withExtendedLifetime(replaced) {}
      return Int32(SG_UNCHANGED)
    }
    // Released after unlock: a deinit may run user code.
    let oldValue = replaceValue(in: storage, with: newValue)
    if let transaction = Transaction.currentUnretained {
      transaction._withUnsafeGuaranteedRef { record(oldValue, in: $0) }
    } else {
      // Through the box: the pointer kept across the call above would cost a register.
      _ = Self.revisions(in: self.storage.unsafelyUnwrapped)?._withUnsafeGuaranteedRef {
        $0.advanceRevision()
      }
      lock.unlock()
    }
    return Int32(SG_CHANGED)
  }

  /// Logs the replaced value for a rollback. Called with `lock` held, so that the version
  /// read names the replaced value (a rollback on another thread may be restoring this
  /// node); returns with it released. Out of line: batches are rare.
  @usableFromInline
  func record(_ oldValue: Value, in transaction: Transaction) {
    let storage = storage.unsafelyUnwrapped  // a change: there is a value
    let revisions: Revisions<Value>
    if let kept = Self.revisions(in: storage) {
      revisions = kept.takeUnretainedValue()
    } else {
      revisions = Revisions()
      Self.setRevisions(revisions, in: storage)
    }
    let revisionBefore = revisions.advanceRevision()
    // The core's lock only: never waits for a callback.
    let before = OpenWrites.RestorePoint(
      value: oldValue, revision: revisionBefore, version: sg_node_version_unchecked(node!),
      undo: nil)
    let isFirst = revisions.openWrites.add(
      transaction.id, before: before, revisionWritten: revisions.revision, versionWritten: 0)
    lock.unlock()
    if isFirst { transaction.record(self, holding: node!) }
  }

  override func snapshotValue() -> Any? { lock.withLock { storage.map { $0.pointee } } }
}

extension TypedComputeBox: Restorable {
  @usableFromInline
  func rollBack(_ transaction: ObjectIdentifier) {
    // Check, restore and version in one step: a computation of this node on another
    // thread stores its value under this lock too. `sg_rollback` inside the batch runs
    // no callback. It leaves the node to run again at its next read, so a value restored
    // while another thread's run was under way is never taken as current.
    lock.lock()
    // A node with open writes has them, and a value.
    guard let storage, let revisions = Self.revisions(in: storage)?.takeUnretainedValue() else {
      return lock.unlock()
    }
    var rolledBack: [Value] = []  // released after unlock: a deinit may run user code
    while let write = revisions.openWrites.popNewest(of: transaction) {
      guard revisions.revision == write.revisionWritten else {
        revisions.openWrites.bypass(write)  // computed again since: that value stays
        continue
      }
      // A value was cached: it changed, and the write logged the one it replaced.
      rolledBack.append(replaceValue(in: storage, with: write.before.value))
      revisions.revision = write.before.revision
      _ = sg_rollback(node!, write.before.version)
    }
    lock.unlock()
    withExtendedLifetime(rolledBack) {}
  }

  @usableFromInline
  func transfer(from child: ObjectIdentifier, to parent: ObjectIdentifier) {
    // Bookkeeping only, under the lock that guards it.
    lock.withLock { revisions?.openWrites.transfer(from: child, to: parent) }
  }

  @usableFromInline
  func batchDidCommit(_ transaction: ObjectIdentifier) {
    // Bookkeeping only; Observation hears through the core's watcher.
    lock.withLock { revisions?.openWrites.drop(transaction) }
  }
}

/// C entry points into Swift. `context` is an unmanaged `ComputeBox`, kept
/// alive by the C node while a callback runs: borrowed, not retained.
enum Trampolines {
  static let compute: sg_callback = { _, context in
    Unmanaged<ComputeBox>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.run($0) }
  }
  static let watch: sg_callback = { _, context in
    Unmanaged<ComputeBox>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.valueDidChange() }
    return 0
  }
  static let release: sg_destroy = { context in ContextRelease.release(context!) }
}
