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
/// write returns, or at the end of the outermost ``withGraphBatch(_:)``.
/// The graph keeps no strong reference to a node: it lives as long as you
/// (or the closures of dependent nodes) hold it.
public final class Stored<Value>: @unchecked Sendable {
  /// The node's debug name (the property name for macro-made nodes).
  public let name: String
  // `@usableFromInline` below: the accessors are `@inlinable`, so a client
  // module compiles them specialised for its `Value` (no generic value
  // witnesses, no calls for the lock).
  @usableFromInline let node: OpaquePointer
  @usableFromInline let lock = ValueLock()
  @usableFromInline @exclusivity(unchecked) var value: Value  // guarded by `lock`
  /// Made by the first read outside a computation, the only kind Observation
  /// tracks: until then no observer can know the node, so it costs no memory
  /// (a registrar is two allocations) and a change skips it (its
  /// willSet/didSet cost ~250 instructions even when empty). Guarded by `lock`.
  @usableFromInline @exclusivity(unchecked) var observation: NodeObservation?
  @usableFromInline let isSame: (Value, Value) -> Bool
  /// Where the value persists; nil for a node that lives in memory only
  /// (see Storage/ and `init(name:wrappedValue:backed:)`).
  @usableFromInline let persistence: StoredPersistence<Value>?

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

  init(
    name: String?, wrappedValue: Value, persistence: StoredPersistence<Value>?,
    file: StaticString, line: UInt
  ) {
    self.name = name ?? ""
    self.value = wrappedValue
    self.isSame = Equality.comparator(for: Value.self)
    self.persistence = persistence
    var created: OpaquePointer?
    GraphCore.info(name: name, file: file, line: line) { info in
      _ = sg_stored_new(GraphCore.graph, info, &created)
    }
    self.node = created!
    // Graph snapshots reach the value through the context (Introspection/).
    sg_stored_set_context_unchecked(node, Unmanaged.passUnretained(self).toOpaque())
  }

  deinit { sg_node_destroy(node) }

  /// The current value. Reading it inside a computation records a
  /// dependency; setting it notifies dependents when the value changed.
  /// A persisted node saves every value set here at once.
  @inlinable
  public var wrappedValue: Value {
    get {
      GraphCore.read(node)
      let isOutside = !GraphCore.isComputing
      lock.lock()
      // Made before the value is read, under the same lock: a write that
      // found none (and told Observation nothing) came before this read,
      // which sees its value.
      let observation = isOutside ? madeObservation() : nil
      let current = value
      lock.unlock()
      observation?.access()
      return current
    }
    set {
      if let persistence {
        persistence.write(newValue, to: self)  // saves, then comes back through `replace`
      } else {
        replace(with: newValue)
      }
    }
  }

  /// Sets the value and tells dependents and Observation, unless it equals the
  /// current one. Persisted nodes also pass `isCurrent`, checked under the value
  /// lock, to drop a value that arrives after a newer one; `undo`, run with the
  /// value's restore when the enclosing batch rolls back; and `joinsBatch: false`
  /// for changes found in the backing, which no batch of this thread can undo.
  @inlinable
  func replace(
    with newValue: Value, isCurrent: (() -> Bool)? = nil, undo: (() -> Void)? = nil,
    joinsBatch: Bool = true
  ) {
    lock.lock()
    if let isCurrent, !isCurrent() {
      lock.unlock()
      return
    }
    if isSame(value, newValue) {
      lock.unlock()
      return
    }
    let oldValue = value  // released after unlock: a deinit may run user code
    value = newValue
    let observation = observation
    lock.unlock()
    didChange(from: oldValue, undo: undo, joinsBatch: joinsBatch, observation: observation)
  }

  /// The node's Observation registrar, made on first use. Under `lock`.
  @inlinable
  func madeObservation() -> NodeObservation {
    if let observation { return observation }
    let made = NodeObservation()
    observation = made
    return made
  }

  /// Tells the core and Observation about a change; out of line, as it runs
  /// no value-specific code but the undo log's copy.
  @usableFromInline
  func didChange(
    from oldValue: Value, undo: (() -> Void)?, joinsBatch: Bool,
    observation: NodeObservation?
  ) {
    if joinsBatch, let transaction = Transaction.current {
      // Observation hears of it when the outermost batch commits, or never.
      transaction.record(self, node: node, oldValue: oldValue, undo: undo)
      sg_changed_unchecked(node)
    } else {
      sg_changed_unchecked(node)
      observation?.didChange()
    }
  }

  /// The value, for a graph snapshot (Introspection/GraphSnapshot.swift).
  func snapshotValue() -> Any? { lock.withLock { value } }

}

extension Stored: Restorable {
  func restore(_ oldValue: Any) {
    lock.lock()
    let rolledBack = value
    value = oldValue as! Value
    lock.unlock()
    _ = rolledBack  // released after unlock: a deinit may run user code
  }

  /// An observer may have read the node since it changed inside the batch,
  /// so it is looked up now.
  func batchDidCommit() {
    lock.withLock { observation }?.didChange()
  }
}
