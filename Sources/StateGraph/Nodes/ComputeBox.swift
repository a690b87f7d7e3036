import StateGraphCore

/// What the C node of a ``Computed`` points at: the closure and the cached
/// value. The C node retains it (released by its destroy callback), so a
/// callback never meets freed memory, even while the `Computed` itself goes
/// away on another thread. Non-generic base: one C thunk serves every type.
class ComputeBox {
  func compute() -> Int32 { fatalError("abstract") }
  func valueDidChange() {}
  /// The cached value, for a graph snapshot (Introspection/GraphSnapshot.swift).
  func snapshotValue() -> Any? { nil }
}

final class TypedComputeBox<Value>: ComputeBox, @unchecked Sendable {
  private let lock = ValueLock()
  // A pointer and a flag rather than `Value?`: unspecialized generic code
  // would look up `Optional<Value>`'s metadata on every access.
  private let storage = UnsafeMutablePointer<Value>.allocate(capacity: 1)
  @exclusivity(unchecked) private var hasValue = false
  private let body: @Sendable (GraphContext) -> Value
  private let isSame: ((Value, Value) -> Bool)?
  var node: OpaquePointer!
  weak var owner: Computed<Value>?

  init(initialValue: Value?, body: @escaping @Sendable (GraphContext) -> Value) {
    if let initialValue {
      storage.initialize(to: initialValue)
      hasValue = true
    }
    self.body = body
    self.isSame = Equality.comparator(for: Value.self)
  }

  deinit {
    if hasValue { storage.deinitialize(count: 1) }
    storage.deallocate()
  }

  /// The cached value; only read after the C core brought the node up to date.
  var current: Value {
    lock.lock()
    defer { lock.unlock() }
    return storage.pointee
  }

  override func compute() -> Int32 {
    let newValue = body(GraphContext())
    lock.lock()
    guard hasValue else {
      storage.initialize(to: newValue)
      hasValue = true
      lock.unlock()
      return Int32(SG_CHANGED)
    }
    if let isSame, isSame(storage.pointee, newValue) {
      lock.unlock()
      return Int32(SG_UNCHANGED)
    }
    let oldValue = storage.move()  // released after unlock: a deinit may run user code
    storage.initialize(to: newValue)
    lock.unlock()
    if let transaction = Transaction.current {
      // The log calls sg_rollback with `node` later: `owner` (captured) keeps
      // the C node alive until then, or a node created meanwhile could get
      // its memory and be rolled back in its place.
      transaction.record(
        self, node: node, restore: { [oldValue, owner] in
          self.restore(oldValue)
          _ = owner
        })
    }
    return Int32(SG_CHANGED)
  }

  private func restore(_ oldValue: Value) {
    lock.lock()
    let rolledBack = storage.move()
    storage.initialize(to: oldValue)
    lock.unlock()
    _ = rolledBack
  }

  override func valueDidChange() { owner?.notifyObservation() }

  override func snapshotValue() -> Any? { lock.withLock { hasValue ? storage.pointee : nil } }
}

/// C entry points into Swift. `context` is an unmanaged `ComputeBox`.
enum Trampolines {
  static let compute: sg_callback = { _, context in
    Unmanaged<ComputeBox>.fromOpaque(context!).takeUnretainedValue().compute()
  }
  static let watch: sg_callback = { _, context in
    Unmanaged<ComputeBox>.fromOpaque(context!).takeUnretainedValue().valueDidChange()
    return 0
  }
  static let release: sg_destroy = { context in ContextRelease.release(context!) }
}
