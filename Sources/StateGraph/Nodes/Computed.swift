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
/// instances), dependents are not recomputed (equality cutoff); the node keeps
/// the new value all the same.
///
/// - Complexity: a read of an up-to-date node is O(1); a read after a change
///   visits only the nodes between it and the changed source.
///
/// Thread safety: the closure runs on whichever thread reads, with no lock
/// held; two threads needing the same stale node compute it once. A cycle
/// (a computation that reads itself, directly or not) stops the program with
/// a message naming the nodes and where they were created. The node is
/// `Sendable` when its `Value` is: a value that is not would cross threads
/// with it.
public final class Computed<Value> {
  /// What a computation receives: ``GraphContext``.
  public typealias Context = GraphContext

  // `@usableFromInline` below: the inits and `wrappedValue` are `@inlinable`,
  // so the module that names `Value` compiles them, and the box's compute
  // run, specialised for it.
  /// Owned by the C node (released from its destroy callback, after this
  /// object's deinit destroyed it), so releasing a long chain never recurses.
  /// Unmanaged: reading through it needs no retain. The one stored property: the box
  /// keeps the C handle too.
  @usableFromInline let box: Unmanaged<TypedComputeBox<Value>>

  /// The C node, which the box keeps (set before this object exists).
  @inlinable
  var node: OpaquePointer { box._withUnsafeGuaranteedRef { $0.node.unsafelyUnwrapped } }

  /// Creates a computed node; `compute` runs when the value is first read.
  @inlinable
  public init(
    name: String? = nil, file: StaticString = #fileID, line: UInt = #line,
    _ compute: @escaping @Sendable (Context) -> Value
  ) {
    let box = TypedComputeBox(initialValue: nil, body: compute)
    box.register(name: name, file: file, line: line)
    self.box = .passUnretained(box)
  }

  /// Creates a computed node with a placeholder value: a first computation
  /// that yields an equal value does not count as a change.
  @inlinable
  public init(
    wrappedValue: Value, name: String? = nil, file: StaticString = #fileID, line: UInt = #line,
    _ compute: @escaping @Sendable (Context) -> Value
  ) {
    let box = TypedComputeBox(initialValue: wrappedValue, body: compute)
    box.register(name: name, file: file, line: line)
    self.box = .passUnretained(box)
  }

  /// Creates a node whose value is `value` for good: it reads nothing, so nothing changes
  /// it. A placeholder for a property that `init` replaces with a node of its own.
  @inlinable
  public convenience init(
    constant value: Value, name: String? = nil, file: StaticString = #fileID, line: UInt = #line
  ) {
    let constant = ConstantValue(value)
    self.init(wrappedValue: value, name: name, file: file, line: line) { _ in constant.value }
  }

  deinit { sg_node_destroy(node) }

  /// The value, recomputed first if a dependency changed since the last run.
  @inlinable
  public var wrappedValue: Value {
    if let staging = Staging.current { return stagedRead(staging) }
    return box._withUnsafeGuaranteedRef { box in
      // Outside computations the read arms the node's watcher; a node without one gets
      // it if Observation tracks the read.
      switch GraphCore.readArming(box.node.unsafelyUnwrapped) {
      case .inside: return box.currentAfterRead
      case .outsideWatched: return box.observedCurrent()
      case .outsideUnwatched: return box.unwatchedCurrent()
      }
    }
  }
}

extension Computed {
  /// A read inside a staged transaction of this thread: evaluated against the staged
  /// values once anything is staged, leaving nothing in the shared graph; otherwise the
  /// committed value, with no Observation registration.
  @usableFromInline
  func stagedRead(_ staging: Staging) -> Value {
    if staging.root.stagedCount > 0 { return staging.read(self) }
    let status = sg_read_unchecked(node)
    if status != 0 { GraphCore.fail(status, node) }
    return box._withUnsafeGuaranteedRef { $0.current }
  }
}

/// The value of a constant node, for its computation. `@unchecked Sendable`: immutable, and
/// handed out only as the node's value, which crosses threads only when the node does.
@usableFromInline
final class ConstantValue<Value>: @unchecked Sendable {
  @usableFromInline let value: Value
  @inlinable init(_ value: Value) { self.value = value }
}

/// Safe to share between threads when the value is: the stored property is immutable
/// after `init`; the cached value lives in the box, read and written only under the box's
/// lock; the C node is the core's, which guards it with the graph lock and runs the
/// computation on one thread at a time. The computation is `@Sendable` (it runs on
/// whichever thread reads), and the value it makes is handed to readers on any thread, so
/// it must itself be `Sendable`.
extension Computed: @unchecked Sendable where Value: Sendable {}
