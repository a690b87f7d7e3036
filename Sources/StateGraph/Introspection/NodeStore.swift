/// swift-state-graph's way to draw the graph, kept so that code written for it
/// compiles unchanged: ``graphViz()`` is `GraphSnapshot.capture().dot()`.
/// New code uses ``GraphSnapshot/dot()``, which can also draw part of the graph.
///
/// ```swift
/// print(await NodeStore.shared.graphViz())  // paste into Graphviz
/// ```
public actor NodeStore {
  /// The one store: the graph of the process.
  public static let shared = NodeStore()

  private init() {}

  /// Every live node of the process and its edges, as a Graphviz DOT digraph:
  /// the same text as `GraphSnapshot.capture().dot()`.
  public func graphViz() -> String {
    GraphSnapshot.capture().dot()
  }
}
