import Observation
import StateGraphCore

/// What the C node of a ``Computed`` points at: the closure, the cached
/// value and the Observation registrar. The C node retains it (released by its destroy callback), so a
/// callback never meets freed memory, even while the `Computed` itself goes
/// away on another thread. Non-generic base: one C thunk serves every type.
@usableFromInline
class ComputeBox {
  /// Runs the computation and stores its value. Built by the typed box's
  /// `@inlinable` init, so it is compiled, specialised, where `Value` is known;
  /// a method override would always run the generic code of this module.
  @usableFromInline let run: (ComputeBox) -> Int32
  @usableFromInline var node: OpaquePointer?
  /// Here rather than in the `Computed`: the core's watcher calls reach the
  /// box, which lives as long as the C node, with no reference back needed.
  @usableFromInline let registrar = ObservationRegistrar()

  @usableFromInline
  init(run: @escaping (ComputeBox) -> Int32) { self.run = run }

  /// Creates the C node, which retains this box until it is destroyed.
  @usableFromInline
  final func register(name: String?, file: StaticString, line: UInt) -> OpaquePointer {
    let context = Unmanaged.passRetained(self).toOpaque()
    var created: OpaquePointer?
    GraphCore.info(name: name, file: file, line: line) { info in
      _ = sg_computed_new(
        GraphCore.graph, info, Trampolines.compute, context, Trampolines.release, &created)
    }
    sg_node_set_watcher(created, Trampolines.watch)
    node = created
    return created!
  }

  /// The core's watcher: the value may have changed (Observation/).
  final func valueDidChange() { registrar.valueDidChange() }
  /// The cached value, for a graph snapshot (Introspection/GraphSnapshot.swift).
  func snapshotValue() -> Any? { nil }
}

/// `@unchecked Sendable`: the C node hands the box to whichever thread computes or reads;
/// `storage`, `hasValue`, `revision`, `lastRevision` and `openWrites` are touched only
/// under `lock`, and the rest is immutable after `init`. Internal: only `Computed` (which
/// is `Sendable` only for `Sendable` values) hands out what it holds.
@usableFromInline
final class TypedComputeBox<Value>: ComputeBox, @unchecked Sendable {
  @usableFromInline let lock = ValueLock()
  // A pointer and a flag rather than `Value?`: unspecialized generic code
  // would look up `Optional<Value>`'s metadata on every access.
  @usableFromInline let storage = UnsafeMutablePointer<Value>.allocate(capacity: 1)
  @usableFromInline @exclusivity(unchecked) var hasValue = false
  /// Names the cached value (see ``OpenWrites``): taken from `lastRevision` by every
  /// change, given back by a rollback's restore. Guarded by `lock`, as are
  /// `lastRevision` and `openWrites`.
  @usableFromInline @exclusivity(unchecked) var revision: UInt64 = 0
  @usableFromInline @exclusivity(unchecked) var lastRevision: UInt64 = 0
  @usableFromInline @exclusivity(unchecked) var openWrites = OpenWrites<Value>()
  @usableFromInline let isSame: (Value, Value) -> Bool
  /// The computation, also run directly against a transaction's staged values
  /// (Batch/Staging.swift).
  @usableFromInline let body: @Sendable (GraphContext) -> Value

  @inlinable
  init(initialValue: Value?, body: @escaping @Sendable (GraphContext) -> Value) {
    self.body = body
    if let initialValue {
      storage.initialize(to: initialValue)
      hasValue = true
    }
    self.isSame = Equality.comparator(for: Value.self)
    // Captures only `body`; the box comes as the argument, so no cycle.
    super.init { box in
      unsafeDowncast(box, to: TypedComputeBox<Value>.self).store(body(GraphContext()))
    }
  }

  deinit {
    if hasValue { storage.deinitialize(count: 1) }
    storage.deallocate()
  }

  /// The cached value; only read after the C core brought the node up to date.
  @inlinable
  var current: Value {
    lock.lock()
    defer { lock.unlock() }
    return storage.pointee
  }

  /// Keeps a computed value, answering whether it differs from the last one.
  /// Runs inside the node's computation: the core lets one thread at a time compute a
  /// node and gives it its new version after this returns.
  @inlinable
  func store(_ newValue: Value) -> Int32 {
    // The lock makes the comparison, the store and the new revision one step against
    // readers and rollbacks; no user code runs under it.
    lock.lock()
    guard hasValue else {
      storage.initialize(to: newValue)
      hasValue = true
      lock.unlock()
      return Int32(SG_CHANGED)
    }
    if isSame(storage.pointee, newValue) {
      lock.unlock()
      return Int32(SG_UNCHANGED)
    }
    let oldValue = storage.move()  // released after unlock: a deinit may run user code
    storage.initialize(to: newValue)
    let revisionBefore = revision
    lastRevision &+= 1
    revision = lastRevision
    if let transaction = Transaction.current {
      record(oldValue, revisionBefore: revisionBefore, in: transaction)
    } else {
      lock.unlock()
    }
    return Int32(SG_CHANGED)
  }

  /// Logs the replaced value for a rollback. Called with `lock` held, so that the version
  /// read names the replaced value (a rollback on another thread may be restoring this
  /// node); returns with it released. Out of line: batches are rare.
  @usableFromInline
  func record(_ oldValue: Value, revisionBefore: UInt64, in transaction: Transaction) {
    // The core's lock only: never waits for a callback.
    let before = OpenWrites.RestorePoint(
      value: oldValue, revision: revisionBefore, version: sg_node_version_unchecked(node!),
      versionNamesValue: true, undo: nil)
    let isFirst = openWrites.add(
      transaction.id, before: before, revisionWritten: revision, versionWritten: 0)
    lock.unlock()
    if isFirst { transaction.record(self, node: node!) }
  }

  override func snapshotValue() -> Any? { lock.withLock { hasValue ? storage.pointee : nil } }
}

extension TypedComputeBox: Restorable {
  @usableFromInline
  func rollBack(_ transaction: ObjectIdentifier) {
    // Check, restore and version in one step: a computation of this node on another
    // thread stores its value under this lock too. `sg_rollback` inside the batch runs
    // no callback. It leaves the node to run again at its next read, so a value restored
    // while another thread's run was under way is never taken as current.
    lock.lock()
    var rolledBack: [Value] = []  // released after unlock: a deinit may run user code
    while let write = openWrites.popNewest(of: transaction) {
      guard revision == write.revisionWritten else {
        openWrites.bypass(write)  // computed again since: that value stays
        continue
      }
      rolledBack.append(storage.move())
      storage.initialize(to: write.before.value)
      revision = write.before.revision
      _ = sg_rollback(node!, write.before.version)
    }
    lock.unlock()
    withExtendedLifetime(rolledBack) {}
  }

  @usableFromInline
  func transfer(from child: ObjectIdentifier, to parent: ObjectIdentifier) {
    // Bookkeeping only, under the lock that guards it.
    lock.withLock { openWrites.transfer(from: child, to: parent) }
  }

  @usableFromInline
  func batchDidCommit(_ transaction: ObjectIdentifier) {
    // Bookkeeping only; Observation hears through the core's watcher.
    lock.withLock { openWrites.drop(transaction) }
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
