/// What ``Stored`` and ``Computed`` have in common: a value that can be read,
/// tracked, observed and mapped.
///
/// ```swift
/// func describe(_ node: some GraphNode<Int>) -> String {
///   "\(node.name) = \(node.wrappedValue)"
/// }
/// ```
///
/// Only ``Stored`` and ``Computed`` conform: a node is a node of the graph, which
/// no other type can provide (see `_graphHandle`).
public protocol GraphNode<Value>: AnyObject, Sendable {
  /// The type of the value the node holds.
  associatedtype Value
  /// The node's value; reading it inside a computation records a dependency.
  var wrappedValue: Value { get }
  /// The node's debug name.
  var name: String { get }
  /// The node's place in the graph. Not for use outside StateGraph: a
  /// `_GraphNodeHandle` cannot be made elsewhere, which keeps other types
  /// from conforming.
  var _graphHandle: _GraphNodeHandle { get }
}

/// A node's place in the graph, which only ``Stored`` and ``Computed`` have.
/// Not for use outside StateGraph: it has no public members, and exists so that
/// no other type can conform to ``GraphNode``.
public struct _GraphNodeHandle: @unchecked Sendable {
  // The C node, which the Swift node owns. A C handle is safe to pass between
  // threads (stategraph.h checks every handle at the door).
  let node: OpaquePointer

  init(_ node: OpaquePointer) { self.node = node }
}

extension Stored: GraphNode {
  /// The node's place in the graph (see `GraphNode._graphHandle`).
  public var _graphHandle: _GraphNodeHandle { _GraphNodeHandle(node) }
}

extension Computed: GraphNode {
  /// The node's place in the graph (see `GraphNode._graphHandle`).
  public var _graphHandle: _GraphNodeHandle { _GraphNodeHandle(node) }
}
