import Foundation
import StateGraph
import Testing

// `Computed(rule:)` with an `inout` context, and the computed environment
// (`ComputedEnvironmentKey`, `StateGraphGlobal`, `Context.environment`), as
// swift-state-graph spells them.

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

@Suite("Computed(rule:) and the computed environment", .serialized)
struct ComputedRuleAndEnvironmentTests {
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
}
