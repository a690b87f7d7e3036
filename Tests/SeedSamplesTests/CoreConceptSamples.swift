// The Stored/Computed samples of upstream swift-state-graph's README and "Core Concepts"
// guide, as written.
import StateGraph
import Testing

@Suite("Upstream samples: Stored and Computed")
struct CoreConceptSamples {
  @Test func creatingAStoredNode() {
    // Creating a stored node
    let counter = Stored(wrappedValue: 0)

    // Reading the value
    let currentCount = counter.wrappedValue // 0
    #expect(currentCount == 0)

    // Updating the value
    counter.wrappedValue = 1
    #expect(counter.wrappedValue == 1)
  }

  @Test func computedSum() {
    let a = Stored(wrappedValue: 10)
    let b = Stored(wrappedValue: 20)

    // This computed node depends on nodes a and b
    let sum = Computed { _ in
        a.wrappedValue + b.wrappedValue
    }

    #expect(sum.wrappedValue == 30) // 30

    // When a dependency changes, the computed value updates automatically
    a.wrappedValue = 15
    #expect(sum.wrappedValue == 35) // 35
  }

  @Test func computedWithInitialValue() {
    let stored = Stored(wrappedValue: 10)

    let computed = Computed(wrappedValue: 0) { _ in stored.wrappedValue * 2 }

    #expect(computed.wrappedValue == 20) // computed.wrappedValue => 20

    stored.wrappedValue = 20

    #expect(computed.wrappedValue == 40) // computed.wrappedValue => 40
  }

  @Test func observableComparison() {
    let stored = Stored(wrappedValue: 10)

    let computed = Computed { _ in stored.wrappedValue * 2 }

    #expect(computed.wrappedValue == 20)

    stored.wrappedValue = 20

    #expect(computed.wrappedValue == 40) // (automatically updated)
  }

  @Test func fullName() {
    let firstName = Stored(wrappedValue: "John")
    let lastName = Stored(wrappedValue: "Doe")

    // This computed node depends on firstName and lastName
    let fullName = Computed { _ in
        "\(firstName.wrappedValue) \(lastName.wrappedValue)"
    }

    #expect(fullName.wrappedValue == "John Doe") // "John Doe"

    // When a dependency changes, the computed value updates automatically
    firstName.wrappedValue = "Jane"
    #expect(fullName.wrappedValue == "Jane Doe") // "Jane Doe"
  }

  @Test func namedStoredNodeAsInTheMacroExpansion() {
    let node: Stored<Int> = .init(name: "count", wrappedValue: 0)
    #expect(node.name == "count")
    #expect(node.wrappedValue == 0)
  }

  @Test func sharingWithoutMap() {
    // "❌ No need to create new Stored instances" — but it works:
    let items = Stored(wrappedValue: [1, 2])
    let mapped = items.map { _, value in value }
    items.wrappedValue.append(3)
    #expect(mapped.wrappedValue == [1, 2, 3])
  }
}
