import StateGraph

struct CartItem: Identifiable, Equatable {
  var id: String { name }
  var name: String
  var price: Double
  var quantity: Int = 1
}

final class ShoppingCartViewModel {
  @GraphStored
  var items: [CartItem] = []

  @GraphStored
  var taxRate: Double = 0.08

  @GraphComputed
  var subtotal: Double

  @GraphComputed
  var tax: Double

  @GraphComputed
  var total: Double

  init() {
    self.$subtotal = .init { [$items] _ in
      $items.wrappedValue.reduce(0) { $0 + ($1.price * Double($1.quantity)) }
    }

    self.$tax = .init { [$subtotal, $taxRate] _ in
      $subtotal.wrappedValue * $taxRate.wrappedValue
    }

    self.$total = .init { [$subtotal, $tax] _ in
      $subtotal.wrappedValue + $tax.wrappedValue
    }
  }
}

func shoppingCart() {
  let cart = ShoppingCartViewModel()
  let subscription = withGraphTracking {
    cart.$total.onChange { total in say("total → \(money(total))") }
  }
  say("add a book for $20 (x2):")
  cart.items.append(CartItem(name: "Book", price: 20, quantity: 2))
  say("add a pen for $2.50:")
  cart.items.append(CartItem(name: "Pen", price: 2.5))
  say("tax rate 8% → 10%:")
  cart.taxRate = 0.10
  say("subtotal \(money(cart.subtotal)) + tax \(money(cart.tax)) = \(money(cart.total))")
  subscription.cancel()
}

func money(_ value: Double) -> String {
  let cents = Int((value * 100).rounded())
  let fraction = cents % 100
  return "$\(cents / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
