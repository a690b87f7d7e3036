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

@usableFromInline
final class TypedComputeBox<Value>: ComputeBox, @unchecked Sendable {
  @usableFromInline let lock = ValueLock()
  // A pointer and a flag rather than `Value?`: unspecialized generic code
  // would look up `Optional<Value>`'s metadata on every access.
  @usableFromInline let storage = UnsafeMutablePointer<Value>.allocate(capacity: 1)
  @usableFromInline @exclusivity(unchecked) var hasValue = false
  @usableFromInline let isSame: (Value, Value) -> Bool

  @inlinable
  init(initialValue: Value?, body: @escaping @Sendable (GraphContext) -> Value) {
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
  @inlinable
  func store(_ newValue: Value) -> Int32 {
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
    lock.unlock()
    if let transaction = Transaction.current { record(oldValue, in: transaction) }
    return Int32(SG_CHANGED)
  }

  /// Logs the replaced value for a rollback; out of line: batches are rare.
  @usableFromInline
  func record(_ oldValue: Value, in transaction: Transaction) {
    transaction.record(self, node: node!, oldValue: oldValue)
  }

  override func snapshotValue() -> Any? { lock.withLock { hasValue ? storage.pointee : nil } }
}

extension TypedComputeBox: Restorable {
  func restore(_ oldValue: Any) {
    lock.lock()
    let rolledBack = storage.move()
    storage.initialize(to: oldValue as! Value)
    lock.unlock()
    _ = rolledBack  // released after unlock: a deinit may run user code
  }

  func batchDidCommit() {}  // Observation hears through the core's watcher
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
