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
  /// The node's name in the graph, or nil for an unnamed node. A ``Name`` reads like a
  /// string (`info.name == "total"`, `"\(name)"`) and converts the way swift-state-graph's
  /// static-string names do: `info.name.map(String.init)` is a `String?`.
  public let name: Name?
  /// The name of the node's value type.
  public let typeName: String
  /// The file that created the node (`#fileID`); empty when unknown.
  public let file: String
  /// The line of `file`.
  public let line: Int

  /// `name<Type> (file:line)`.
  public var description: String {
    "\(name?.description ?? "(unnamed)")<\(typeName)>" + (file.isEmpty ? "" : " (\(file):\(line))")
  }

  /// A node's name: text that compares with string literals and strings, and turns into a
  /// `String` with `String(name)` or `name.description`.
  ///
  /// ```swift
  /// let total = Computed(name: "total") { _ in 42 }
  /// total.info.name == "total"              // true
  /// total.info.name.map(String.init)       // Optional("total")
  /// ```
  public struct Name: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name's text.
    public let description: String

    /// A name with the text `description`.
    public init(_ description: String) { self.description = description }

    /// A name written as a literal.
    public init(stringLiteral value: String) { description = value }

    /// Whether `name` has the text `string`.
    public static func == (name: Name, string: String) -> Bool { name.description == string }

    /// Whether `name` has the text `string`.
    public static func == (string: String, name: Name) -> Bool { name.description == string }
  }
}

extension String {
  /// The text of a node's name: `info.name.map(String.init)`.
  public init(_ name: NodeInfo.Name) { self = name.description }
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
      id: description.id, name: name.isEmpty ? nil : NodeInfo.Name(name), typeName: String(describing: Value.self),
      file: description.file.map { String(cString: $0) } ?? "", line: Int(description.line))
  }
}
