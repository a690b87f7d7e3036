import StateGraphCore

/// The graph at one moment: its nodes — kind, name, place, state, value,
/// run count — and who reads whom.
///
/// ```swift
/// let snapshot = GraphSnapshot.capture(.upstream(of: cart.$total))
/// print(snapshot)  // one line per node
/// let dot = snapshot.dot()  // Graphviz: `dot -Tpng cart.dot -o cart.png`
/// ```
///
/// Everything is copied at one instant under the graph lock, so a snapshot
/// never mixes before and after a write; values are described afterwards,
/// with `String(describing:)` of each node's current value (a computed
/// node's cached one: look at ``Node/state`` to see whether it is stale).
/// Taking a snapshot does not recompute anything.
///
/// - Complexity: O(nodes + edges) of the chosen part, plus describing each
///   value.
///
/// Thread safety: any thread, also inside computations. Nodes other threads
/// create or destroy meanwhile are in it or not, never half.
public struct GraphSnapshot: Sendable, CustomStringConvertible {
  /// What a node is.
  public enum Kind: String, Sendable, Hashable {
    /// A ``Stored`` node.
    case stored
    /// A ``Computed`` node.
    case computed
    /// An observer: `onChange`, `withGraphTrackingGroup`, `withGraphTrackingMap`.
    case effect
  }

  /// Whether a node is up to date. Stored nodes are always clean.
  public enum State: String, Sendable, Hashable {
    /// Up to date.
    case clean
    /// Something further upstream changed: maybe this did too.
    case check
    /// A direct source changed, or it never ran: it runs on the next read.
    case dirty
  }

  /// One node.
  public struct Node: Sendable, Hashable, Identifiable {
    /// Unique in the process, never reused; in creation order.
    public let id: UInt64
    /// Stored, computed or effect (an observer).
    public let kind: Kind
    /// Its debug name: `name:` at creation, the property name for macro-made
    /// stored nodes, `Type.property` after ``nameGraphNodes(of:)``; "" when none.
    public let name: String
    /// Where it was created.
    public let file: String
    /// The line of ``file``.
    public let line: Int
    /// Clean, check (maybe dirty) or dirty when the snapshot was taken.
    public let state: State
    /// `String(describing:)` of its value; nil for effects, for computed
    /// nodes that never ran, and for nodes that another thread was creating
    /// or destroying during the capture.
    public let value: String?
    /// Grows every time its value changes.
    public let version: UInt64
    /// How many times its closure ran (recomputations, or observer runs).
    public let runCount: Int
    /// The ids of the nodes its last run read, in read order (those in the
    /// snapshot).
    public let sources: [UInt64]
  }

  /// An edge: `target`'s last run read `source`.
  public struct Edge: Sendable, Hashable {
    /// The id of the node that was read.
    public let source: UInt64
    /// The id of the node whose run read it.
    public let target: UInt64

    /// An edge from `source` (read) to `target` (reader).
    public init(source: UInt64, target: UInt64) {
      self.source = source
      self.target = target
    }
  }

  /// Which part of the graph to capture.
  public enum Scope: Sendable {
    /// Every live node.
    case graph
    /// The node and everything it reads, transitively.
    case upstream(of: any GraphNode)
    /// The node and everything that reads it, transitively (observers included).
    case downstream(of: any GraphNode)
    /// Both of the above.
    case upstreamAndDownstream(of: any GraphNode)
  }

  /// The nodes, in creation order.
  public let nodes: [Node]
  private let core: CoreSnapshot

  /// Every edge, by target in creation order, then in read order.
  public var edges: [Edge] {
    nodes.flatMap { node in node.sources.map { Edge(source: $0, target: node.id) } }
  }

  /// The first node with this name, if any.
  public func node(named name: String) -> Node? { nodes.first { $0.name == name } }

  /// Takes a snapshot of `scope` (the whole graph by default).
  public static func capture(_ scope: Scope = .graph) -> GraphSnapshot {
    let collector = ValueCollector()
    let user = Unmanaged.passUnretained(collector).toOpaque()
    var taken: OpaquePointer?
    let status =
      if let around = scope.around {
        sg_snapshot_around(around.node.coreNode, around.direction, ValueCollector.visit, user, &taken)
      } else {
        sg_snapshot_graph(GraphCore.graph, ValueCollector.visit, user, &taken)
      }
    // The node is alive (we hold it) and the graph is never freed: only
    // memory can run out, and then Swift would have stopped already.
    guard status == 0, let taken else {
      fatalError("StateGraph: taking a snapshot failed: \(String(cString: sg_strerror(status)))")
    }
    // User code (descriptions) runs only now, with no node held back.
    for (index, value) in collector.values {
      sg_snapshot_set_value(taken, index, String(describing: value))
    }
    return GraphSnapshot(CoreSnapshot(taken))
  }

  private init(_ core: CoreSnapshot) {
    self.core = core
    var count = 0
    let entries = sg_snapshot_entries(core.pointer, &count)!
    nodes = (0..<count).map { index in
      let entry = entries[index]
      let sources = (0..<entry.source_count).map { entries[entry.sources![$0]].id }
      return Node(
        id: entry.id, kind: Kind(entry.kind), name: String(cString: entry.name),
        file: String(cString: entry.file), line: Int(entry.line), state: State(entry.state),
        value: entry.value.map { String(cString: $0) }, version: entry.version,
        runCount: Int(entry.run_count), sources: sources)
    }
  }

  /// One line per node: name, kind, state and runs, value, and sources.
  ///
  /// ```text
  /// Cart.total [computed, clean, 2 runs] = 43.2 <- Cart.subtotal, Cart.tax
  /// ```
  public var description: String {
    let names = Dictionary(nodes.map { ($0.id, $0.name.isEmpty ? "(unnamed)" : $0.name) }) { a, _ in a }
    return nodes.map { node in
      var line = names[node.id]! + " [" + node.kind.rawValue
      if node.kind != .stored {
        line += ", \(node.state.rawValue), \(node.runCount) run\(node.runCount == 1 ? "" : "s")"
      }
      line += "]"
      if let value = node.value { line += " = " + value }
      if !node.sources.isEmpty { line += " <- " + node.sources.map { names[$0]! }.joined(separator: ", ") }
      return line
    }.joined(separator: "\n")
  }

  /// The snapshot as a Graphviz DOT digraph (written by the C core, so C
  /// and Swift pictures look alike): one vertex per node with its name,
  /// value (cut at 40 characters), kind, state, runs and place; an edge from
  /// each source to its reader. Stored nodes are boxes, computed ones
  /// rounded boxes, observers ellipses; stale nodes are filled yellow
  /// (check) or red (dirty). Same graph, same text.
  ///
  /// ```swift
  /// try GraphSnapshot.capture().dot().write(toFile: "graph.dot", atomically: true, encoding: .utf8)
  /// // then: dot -Tpng graph.dot -o graph.png
  /// ```
  public func dot() -> String {
    CText.capture { sg_snapshot_write_dot(core.pointer, $0) }
  }
}

extension GraphSnapshot.Scope {
  /// The node and direction to snapshot around; nil for the whole graph.
  fileprivate var around: (node: any GraphNode, direction: sg_direction)? {
    switch self {
    case .graph: nil
    case .upstream(let node): (node, SG_UPSTREAM)
    case .downstream(let node): (node, SG_DOWNSTREAM)
    case .upstreamAndDownstream(let node): (node, SG_BOTH)
    }
  }
}

extension GraphSnapshot.Kind {
  init(_ kind: sg_kind) {
    switch kind {
    case SG_STORED: self = .stored
    case SG_COMPUTED: self = .computed
    default: self = .effect
    }
  }
}

extension GraphSnapshot.State {
  init(_ state: sg_state) {
    switch state {
    case SG_CLEAN: self = .clean
    case SG_CHECK: self = .check
    default: self = .dirty
    }
  }
}

/// Owns the C snapshot; immutable once captured, so it may be shared.
private final class CoreSnapshot: @unchecked Sendable {
  let pointer: OpaquePointer
  init(_ pointer: OpaquePointer) { self.pointer = pointer }
  deinit { sg_snapshot_free(pointer) }
}

/// Values copied by the snapshot visitor, to be described once no node is
/// held back any more: the visitor delays destroying its node, so it copies
/// and nothing else (a description is user code, which might wait for a
/// thread that is destroying that very node).
private final class ValueCollector {
  var values: [(index: Int, value: Any)] = []

  static let visit: sg_snapshot_visitor = { _, index, context, user in
    guard let context, let user else { return }
    let holder = Unmanaged<AnyObject>.fromOpaque(context).takeUnretainedValue()
    guard let source = holder as? SnapshotValueSource, let value = source.snapshotValue() else {
      return
    }
    Unmanaged<ValueCollector>.fromOpaque(user).takeUnretainedValue().values.append((index, value))
  }
}
