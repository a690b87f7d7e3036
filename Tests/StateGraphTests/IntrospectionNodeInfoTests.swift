import StateGraph
import Testing

// `Node.info` and `NodeStore.shared.graphViz()`, as swift-state-graph spells them.

@Suite("Node info and graphViz")
struct IntrospectionNodeInfoTests {
  @Test func infoNamesTheNodeItsTypeAndItsPlace() {
    let count = Stored(name: "count", wrappedValue: 0)
    let label = Computed(name: "label") { _ in "\(count.wrappedValue)" }
    let unnamed = Stored(wrappedValue: 1.5)
    #expect(count.info.name == "count")
    #expect(count.info.typeName == "Int")
    #expect(label.info.typeName == "String")
    #expect(label.info.file.hasSuffix("IntrospectionNodeInfoTests.swift"))
    #expect(label.info.line == #line - 6)
    #expect(unnamed.info.name == nil)
    #expect(count.info.id != label.info.id)
    #expect(count.info == count.info)
    _ = label.wrappedValue
    let snapshot = GraphSnapshot.capture(.upstream(of: label))
    #expect(snapshot.node(named: "label")?.id == label.info.id)
  }

  @Test func graphVizDrawsTheLiveNodes() async {
    let source = Stored(name: "parity.graphviz.source", wrappedValue: 1)
    let sink = Computed(name: "parity.graphviz.sink") { _ in source.wrappedValue + 1 }
    _ = sink.wrappedValue
    let dot = await NodeStore.shared.graphViz()
    #expect(dot.hasPrefix("digraph"))
    #expect(dot.contains("parity.graphviz.source"))
    #expect(dot.contains("parity.graphviz.sink"))
    withExtendedLifetime((source, sink)) {}
  }
}
