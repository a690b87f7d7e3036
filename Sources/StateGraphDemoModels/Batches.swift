import StateGraph

func batches() {
  let cart = ShoppingCartViewModel()
  let subscription = withGraphTracking {
    cart.$total.onChange { total in say("total → \(money(total))") }
  }
  say("three writes in one batch → one notification:")
  withGraphBatch {
    cart.items.append(CartItem(name: "Lamp", price: 30))
    cart.items.append(CartItem(name: "Bulb", price: 5))
    cart.taxRate = 0
  }
  struct OutOfStock: Error {}
  say("a batch that throws is rolled back, and nobody hears of it:")
  do {
    try withGraphBatch {
      cart.items.removeAll()
      throw OutOfStock()
    }
  } catch {
    say("caught \(error); items still \(cart.items.map(\.name))")
  }
  subscription.cancel()
}
