/// Where `@GraphComputed` keeps its node in a class that declares `Sendable`; written by
/// the macro's expansion, not meant to be used directly.
///
/// Such a class may hold no mutable stored property, so the property's storage is this
/// `let`, made empty with the object. Every stored property of the object is therefore
/// initialised before `init` assigns `self.$total = .init { ... }`, and that closure may
/// capture other nodes (`[$subtotal]`) as in any class.
///
/// Thread safety: the node is read and replaced under a lock, since the owner may be
/// shared between threads once `init` returns.
public final class _GraphComputedSlot<Value> {
  private let lock = ValueLock()
  private var storedNode: Computed<Value>?  // guarded by `lock`

  /// An empty slot: the owner's `init` assigns the node.
  public init() {}

  /// The node, or nil before `init` assigned it.
  public var node: Computed<Value>? {
    get {
      lock.lock()
      defer { lock.unlock() }
      return storedNode
    }
    set {
      lock.lock()
      let replaced = storedNode
      storedNode = newValue
      lock.unlock()
      withExtendedLifetime(replaced) {}  // a node's deinit runs after the lock is released
    }
  }
}

/// Shared between threads when the node is: it is only read and replaced under `lock`.
extension _GraphComputedSlot: @unchecked Sendable where Value: Sendable {}
