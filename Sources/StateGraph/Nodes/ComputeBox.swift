import StateGraphCore

/// What the C node of a ``Computed`` points at: the closure and the cached
/// value. The C node retains it (released by its destroy callback), so a
/// callback never meets freed memory, even while the `Computed` itself goes
/// away on another thread. Non-generic base: one C thunk serves every type.
class ComputeBox {
  func compute() -> Int32 { fatalError("abstract") }
  func valueDidChange() {}
}

final class TypedComputeBox<Value>: ComputeBox, @unchecked Sendable {
  private let lock = ValueLock()
  private var value: Value?
  private let body: @Sendable (GraphContext) -> Value
  private let isSame: ((Value, Value) -> Bool)?
  var node: OpaquePointer!
  weak var owner: Computed<Value>?

  init(initialValue: Value?, body: @escaping @Sendable (GraphContext) -> Value) {
    self.value = initialValue
    self.body = body
    self.isSame = Equality.comparator(for: Value.self)
  }

  deinit { lock.deallocate() }

  /// The cached value; only read after the C core brought the node up to date.
  var current: Value {
    lock.lock()
    defer { lock.unlock() }
    return value!
  }

  override func compute() -> Int32 {
    let newValue = body(GraphContext())
    lock.lock()
    let oldValue = value
    if let oldValue, let isSame, isSame(oldValue, newValue) {
      lock.unlock()
      return Int32(SG_UNCHANGED)
    }
    value = newValue
    lock.unlock()
    if let oldValue, let transaction = Transaction.current {
      transaction.record(self, node: node, restore: { [oldValue] in self.restore(oldValue) })
    }
    return Int32(SG_CHANGED)
  }

  private func restore(_ oldValue: Value) {
    lock.lock()
    value = oldValue
    lock.unlock()
  }

  override func valueDidChange() { owner?.notifyObservation() }
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
