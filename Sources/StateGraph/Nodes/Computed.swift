import Observation
import StateGraphCore

/// A node whose value is derived from other nodes. Its dependencies are the
/// nodes its closure read the last time it ran.
///
/// ```swift
/// let a = Stored(wrappedValue: 10)
/// let b = Stored(wrappedValue: 20)
/// let sum = Computed { _ in a.wrappedValue + b.wrappedValue }
/// sum.wrappedValue  // 30
/// a.wrappedValue = 15
/// sum.wrappedValue  // 35
/// ```
///
/// Lazy and cached: the closure runs on the first read, and again on a read
/// after a dependency changed; at most once per change. When it produces a
/// value equal to the previous one (`Equatable`; identity for class
/// instances), dependents are not recomputed (equality cutoff).
///
/// - Complexity: a read of an up-to-date node is O(1); a read after a change
///   visits only the nodes between it and the changed source.
///
/// Thread safety: the closure runs on whichever thread reads, with no lock
/// held; two threads needing the same stale node compute it once. A cycle
/// (a computation that reads itself, directly or not) stops the program with
/// a message naming the nodes and where they were created.
public final class Computed<Value>: @unchecked Sendable {
  public typealias Context = GraphContext

  /// The node's debug name (the property name for macro-made nodes).
  public let name: String
  let node: OpaquePointer
  let registrar = ObservationRegistrar()
  /// Owned by the C node (released from its destroy callback, after this
  /// object's deinit destroyed it), so releasing a long chain never recurses.
  private unowned(unsafe) let box: TypedComputeBox<Value>

  /// Creates a computed node; `compute` runs when the value is first read.
  public init(
    name: String? = nil, file: StaticString = #fileID, line: UInt = #line,
    _ compute: @escaping @Sendable (Context) -> Value
  ) {
    (self.name, self.box, self.node) = Self.make(name, nil, file, line, compute)
    box.owner = self
  }

  /// Creates a computed node with a placeholder value: a first computation
  /// that yields an equal value does not count as a change.
  public init(
    wrappedValue: Value, name: String? = nil, file: StaticString = #fileID, line: UInt = #line,
    _ compute: @escaping @Sendable (Context) -> Value
  ) {
    (self.name, self.box, self.node) = Self.make(name, wrappedValue, file, line, compute)
    box.owner = self
  }

  private static func make(
    _ name: String?, _ initial: Value?, _ file: StaticString, _ line: UInt,
    _ compute: @escaping @Sendable (Context) -> Value
  ) -> (String, TypedComputeBox<Value>, OpaquePointer) {
    let box = TypedComputeBox(initialValue: initial, body: compute)
    let context = Unmanaged.passRetained(box as ComputeBox).toOpaque()
    var created: OpaquePointer?
    GraphCore.info(name: name, file: file, line: line) { info in
      _ = sg_computed_new(
        GraphCore.graph, info, Trampolines.compute, context, Trampolines.release, &created)
    }
    sg_node_set_watcher(created, Trampolines.watch)
    box.node = created
    return (name ?? "", box, created!)
  }

  deinit { sg_node_destroy(node) }

  /// The value, recomputed first if a dependency changed since the last run.
  public var wrappedValue: Value {
    // Outside computations this also arms the Observation watcher, under the
    // same lock as the read, so no write can slip in between.
    let status = sg_read_arm_unchecked(node)
    if status != 0 { GraphCore.fail(status, node) }
    if !GraphCore.isComputing { registrar.accessValue() }
    return box.current
  }

  func notifyObservation() { registrar.valueDidChange() }
}
