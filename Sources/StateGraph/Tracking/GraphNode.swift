/// What ``Stored`` and ``Computed`` have in common: a value that can be read,
/// tracked, observed and mapped.
public protocol GraphNode<Value>: AnyObject, Sendable {
  /// The type of the value the node holds.
  associatedtype Value
  /// The node's value; reading it inside a computation records a dependency.
  var wrappedValue: Value { get }
  /// The node's debug name.
  var name: String { get }
}

extension Stored: GraphNode {}
extension Computed: GraphNode {}
