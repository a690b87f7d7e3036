/// swift-state-graph's debugging view of the graph, on top of ``GraphSnapshot``.
///
/// ```swift
/// print(await NodeStore.shared.graphViz())  // paste into Graphviz
/// ```
public actor NodeStore {
  /// The one store: the graph of the process.
  public static let shared = NodeStore()

  private init() {}

  /// Every live node of the process and its edges, as a Graphviz DOT digraph: the same
  /// text as `GraphSnapshot.capture().dot()`.
  public func graphViz() -> String {
    GraphSnapshot.capture().dot()
  }
}
