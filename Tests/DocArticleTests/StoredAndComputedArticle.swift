// Keeps the code of StateGraph.docc/StoredAndComputed.md compiling and checked.
import StateGraph
import Testing

@Suite struct StoredAndComputedArticleTests {
  @Test func storedAndComputed() {
    let lines = printedLines {
      let price = Stored(wrappedValue: 12)
      let quantity = Stored(name: "quantity", wrappedValue: 3)
      price.wrappedValue = 15

      let total = Computed { _ in price.wrappedValue * quantity.wrappedValue }
      print(total.wrappedValue)
      quantity.wrappedValue = 4
      print(total.wrappedValue)
      #expect(quantity.name == "quantity")
    }
    #expect(lines == ["45", "60"])
  }

  @Test func branchNotTakenIsNoDependency() {
    let runs = Counter()
    let showDetails = Stored(wrappedValue: false)
    let details = Stored(wrappedValue: "3 items")
    let summary = Computed { _ in
      showDetails.wrappedValue ? "Cart: \(details.wrappedValue)" : "Cart"
    }
    let counted = Computed { _ in
      runs.tick()
      return summary.wrappedValue
    }
    #expect(counted.wrappedValue == "Cart")
    details.wrappedValue = "4 items"
    #expect(counted.wrappedValue == "Cart")
    #expect(runs.value == 1)
    showDetails.wrappedValue = true
    #expect(counted.wrappedValue == "Cart: 4 items")
    details.wrappedValue = "5 items"
    #expect(counted.wrappedValue == "Cart: 5 items")
  }

  @Test func withoutTracking() {
    let unit = Stored(wrappedValue: "km")
    let distance = Stored(wrappedValue: 42)
    let label = Computed { context in
      let unit = context.withoutTracking { unit.wrappedValue }
      return "\(distance.wrappedValue) \(unit)"
    }
    #expect(label.wrappedValue == "42 km")
    unit.wrappedValue = "mi"
    #expect(label.wrappedValue == "42 km")
    distance.wrappedValue = 26
    #expect(label.wrappedValue == "26 mi")
  }

  @Test func mapAndPlaceholder() {
    let celsius = Stored(wrappedValue: 20.0)
    let fahrenheit = celsius.map { _, value in value * 9 / 5 + 32 }
    #expect(fahrenheit.wrappedValue == 68)

    let count = Stored(wrappedValue: 10)
    let doubled = Computed(wrappedValue: 0) { _ in count.wrappedValue * 2 }
    #expect(doubled.wrappedValue == 20)
  }
}
