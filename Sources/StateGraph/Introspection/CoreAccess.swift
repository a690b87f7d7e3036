import StateGraphCore

/// A Swift node's C handle, for the introspection calls that take one.
protocol CoreNodeHolder: AnyObject {
  var node: OpaquePointer { get }
}

extension Stored: CoreNodeHolder {}
extension Computed: CoreNodeHolder {}

extension GraphNode {
  /// The C node behind a ``Stored`` or ``Computed``.
  var coreNode: OpaquePointer { _graphHandle.node }

  /// The node's name in the graph, which keeps the one copy of it.
  var graphName: String {
    var description = sg_node_description()
    guard sg_node_describe(coreNode, &description) == 0 else { return "" }
    return String(cString: description.name)
  }
}

extension Stored {
  /// The node's debug name: its `name:` (the property name for macro-made nodes), or
  /// what ``nameGraphNodes(of:)`` made of it. Cycle reports, snapshots and observers'
  /// names ("onChange(Cart.total)") use the same.
  public var name: String { graphName }
}

extension Computed {
  /// The node's debug name: its `name:` (the property name for macro-made nodes), or
  /// what ``nameGraphNodes(of:)`` made of it. Cycle reports, snapshots and observers'
  /// names ("onChange(Cart.total)") use the same.
  public var name: String { graphName }
}

/// What a C node's context points at when it can show the node's value: the
/// `Stored` itself, or a `Computed`'s `ComputeBox`. Effects' contexts cannot.
protocol SnapshotValueSource: AnyObject {
  /// The current (cached) value, copied under the node's value lock; nil
  /// for a computed that never ran. Runs no user code: a copy, no more.
  func snapshotValue() -> Any?
}

extension Stored: SnapshotValueSource {}
extension ComputeBox: SnapshotValueSource {}
