import StateGraphCore

/// Who a node is: its process-unique id, its name, its value type and where it was made.
///
/// ```swift
/// let total = Computed(name: "total") { _ in 42 }
/// total.info.name      // "total"
/// total.info.typeName  // "Int"
/// ```
public struct NodeInfo: Sendable, Hashable, CustomStringConvertible {
  /// Unique among all nodes of the process, never reused; the `id` of the node in a
  /// ``GraphSnapshot``.
  public let id: UInt64
  /// The node's name in the graph, or nil for an unnamed node.
  public let name: String?
  /// The name of the node's value type.
  public let typeName: String
  /// The file that created the node (`#fileID`); empty when unknown.
  public let file: String
  /// The line of `file`.
  public let line: Int

  /// `name<Type> (file:line)`.
  public var description: String {
    "\(name ?? "(unnamed)")<\(typeName)>" + (file.isEmpty ? "" : " (\(file):\(line))")
  }
}

extension GraphNode {
  /// The node's identity and origin, read from the graph now (a name given later by
  /// ``nameGraphNodes(of:)`` shows).
  public var info: NodeInfo {
    var description = sg_node_description()
    // A node we hold is alive, so this cannot fail.
    guard sg_node_describe(coreNode, &description) == 0 else {
      preconditionFailure("StateGraph: a live node could not be described")
    }
    let name = String(cString: description.name)
    return NodeInfo(
      id: description.id, name: name.isEmpty ? nil : name, typeName: String(describing: Value.self),
      file: description.file.map { String(cString: $0) } ?? "", line: Int(description.line))
  }
}
