import Foundation
import StateGraph
import Testing

// `Computed(rule:)` with an `inout` context, `Node.info`, the computed environment
// (`ComputedEnvironmentKey`, `StateGraphGlobal`, `Context.environment`) and
// `NodeStore.shared.graphViz()`, as swift-state-graph spells them.

private final class Catalog: ComputedEnvironmentKey, Sendable {
  typealias Value = Catalog
  let prices = Stored(name: "prices", wrappedValue: [10, 20])
}

private struct Multiplier: ComputedEnvironmentKey {
  typealias Value = Int
}

extension ComputedEnvironmentValues {
  fileprivate var catalog: Catalog? {
    get { self[Catalog.self] }
    set { self[Catalog.self] = newValue }
  }
}

@Suite("Upstream parity: rule, info, environment, graphViz", .serialized)
struct UpstreamParityIntrospectionTests {
  @Test func aRuleWithAnInoutContextComputesAndTracks() {
    let price = Stored(wrappedValue: 2.0)
    let quantity = Stored(wrappedValue: 3)
    let runs = Counter()
    let total = Computed(name: "total", rule: { context in
      runs.run(price.wrappedValue * Double(quantity.wrappedValue))
    })
    #expect(total.wrappedValue == 6)
    quantity.wrappedValue = 5
    #expect(total.wrappedValue == 10)
    #expect(total.wrappedValue == 10)
    #expect(runs.value == 2)
    #expect(total.name == "total")
  }

  @Test func aTrailingClosureStillMeansTheMainInitialiser() {
    // Both initialisers could take it; the `(Context) -> Value` one wins.
    let doubled = Computed(name: "doubled") { context in
      context.withoutTracking { 21 } * 2
    }
    #expect(doubled.wrappedValue == 42)
  }

  @Test func infoNamesTheNodeItsTypeAndItsPlace() {
    let count = Stored(name: "count", wrappedValue: 0)
    let label = Computed(name: "label") { _ in "\(count.wrappedValue)" }
    let unnamed = Stored(wrappedValue: 1.5)
    #expect(count.info.name == "count")
    #expect(count.info.typeName == "Int")
    #expect(label.info.typeName == "String")
    #expect(label.info.file.hasSuffix("UpstreamParityIntrospectionTests.swift"))
    #expect(label.info.line == #line - 6)
    #expect(unnamed.info.name == nil)
    #expect(count.info.id != label.info.id)
    #expect(count.info == count.info)
    _ = label.wrappedValue
    let snapshot = GraphSnapshot.capture(.upstream(of: label))
    #expect(snapshot.node(named: "label")?.id == label.info.id)
  }

  @Test func computationsReadTheEnvironment() {
    let catalog = Catalog()
    StateGraphGlobal.computedEnvironmentValues.withLock { $0.catalog = catalog }
    defer { StateGraphGlobal.computedEnvironmentValues.withLock { $0.catalog = nil } }
    let total = Computed { context in
      context.environment.catalog?.prices.wrappedValue.reduce(0, +) ?? -1
    }
    #expect(total.wrappedValue == 30)
    catalog.prices.wrappedValue.append(5)  // a node read through the environment is tracked
    #expect(total.wrappedValue == 35)
  }

  @Test func environmentValuesAreKeyedByType() {
    var values = ComputedEnvironmentValues()
    #expect(values[Multiplier.self] == nil)
    values[Multiplier.self] = 3
    #expect(values[Multiplier.self] == 3)
    #expect(values[Catalog.self] == nil)
    values[Multiplier.self] = nil
    #expect(values[Multiplier.self] == nil)
  }

  @Test func changingTheEnvironmentIsNotADependency() {
    StateGraphGlobal.computedEnvironmentValues.withLock { $0[Multiplier.self] = 2 }
    defer { StateGraphGlobal.computedEnvironmentValues.withLock { $0[Multiplier.self] = nil } }
    let base = Stored(wrappedValue: 10)
    let scaled = Computed { context in base.wrappedValue * (context.environment[Multiplier.self] ?? 1) }
    #expect(scaled.wrappedValue == 20)
    StateGraphGlobal.computedEnvironmentValues.withLock { $0[Multiplier.self] = 3 }
    #expect(scaled.wrappedValue == 20)  // cached: the environment is not a node
    base.wrappedValue = 1
    #expect(scaled.wrappedValue == 3)
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
