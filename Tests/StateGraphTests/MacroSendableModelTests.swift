import Foundation
import StateGraph
import Testing

// Models declared `Sendable` with graph properties, compiled in the Swift 6 language mode
// (this target's mode): the macros keep their nodes in `let`s, so the class has no mutable
// stored property. Each form of initialisation the expansion allows is used once here.

/// A value on the declaration, an optional without one, one assigned by init, and
/// computed properties over them.
private final class Cart: Sendable {
  @GraphStored var items: [Int] = []
  @GraphStored var coupon: String?
  @GraphStored var taxRate: Double
  @GraphStored private(set) var checkouts: Int = 0
  @GraphComputed var subtotal: Int
  @GraphComputed public var total: Double

  init(taxRate: Double, subtotalRuns: Counter) {
    self.taxRate = taxRate
    self.items = [1]  // an ordinary write: `items` has a declared value
    self.$subtotal = .init { [$items] _ in subtotalRuns.run($items.wrappedValue.reduce(0, +)) }
    self.$total = .init { [$subtotal, $taxRate] _ in
      Double($subtotal.wrappedValue) * (1 + $taxRate.wrappedValue)
    }
  }

  func checkOut() { checkouts += 1 }
}

/// Shares another object's node through `$name`, allowed for a property with no value on
/// its declaration.
private final class CartSummary: Sendable {
  @GraphStored var taxRate: Double
  @GraphComputed var label: String

  init(sharing cart: Cart) {
    self.$taxRate = cart.$taxRate
    self.$label = .init { [$taxRate] _ in "tax \($taxRate.wrappedValue)" }
  }
}

@Suite("Graph properties in a Sendable class")
struct MacroSendableModelTests {
  @Test func storedAndComputedPropertiesWork() {
    let runs = Counter()
    let cart = Cart(taxRate: 0.5, subtotalRuns: runs)
    #expect(cart.items == [1])
    #expect(cart.coupon == nil)
    #expect(cart.total == 1.5)
    cart.items.append(3)
    #expect(cart.subtotal == 4)
    #expect(cart.total == 6)
    #expect(runs.value == 2)
    cart.coupon = "SAVE"
    #expect(cart.$coupon.wrappedValue == "SAVE")
    cart.checkOut()
    #expect(cart.checkouts == 1)
  }

  @Test func nodesCarryThePropertyNames() {
    let cart = Cart(taxRate: 0, subtotalRuns: Counter())
    #expect(cart.$items.name == "items")
    #expect(cart.$coupon.name == "coupon")
    #expect(cart.$taxRate.name == "taxRate")
  }

  @Test func twoObjectsShareOneNode() {
    let cart = Cart(taxRate: 0.5, subtotalRuns: Counter())
    let summary = CartSummary(sharing: cart)
    #expect(summary.$taxRate === cart.$taxRate)
    cart.taxRate = 0.25
    #expect(summary.taxRate == 0.25)
    #expect(summary.label == "tax 0.25")
  }

  @Test func aModelCrossesThreads() async {
    let cart = Cart(taxRate: 0, subtotalRuns: Counter())
    await withTaskGroup(of: Void.self) { group in
      for value in 1...10 {
        group.addTask { cart.items.append(value) }  // needs `Cart: Sendable`
      }
    }
    #expect(cart.subtotal == 56)
  }

  @Test func observersSeeChanges() {
    let cart = Cart(taxRate: 0, subtotalRuns: Counter())
    let seen = Recorder<Int>()
    let subscription = withGraphTracking {
      cart.$subtotal.onChange { seen.append($0) }
    }
    cart.items = [2, 2]
    #expect(seen.values == [1, 4])
    _ = subscription
  }
}
