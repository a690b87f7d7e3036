import StateGraph

final class StoreViewModel {
  @GraphStored var stockLevel: Int = 10  // Available stock for a product
  @GraphStored var itemsInCart: Int = 0  // Number of this product in the user's cart
}

func productAvailability() {
  let viewModel = StoreViewModel()
  var availabilitySubscription: AnyCancellable?
  availabilitySubscription = withGraphTracking {
    Computed { _ in
      viewModel.stockLevel > viewModel.itemsInCart
    }
    .onChange { isAvailable in
      say(isAvailable ? "✅ Product is available to add to cart." : "⚠️ Product is out of stock.")
    }
    viewModel.$stockLevel.onChange { newStock in say("📦 Stock level updated: \(newStock)") }
    viewModel.$itemsInCart.onChange { items in say("🛒 Items in cart updated: \(items)") }
  }
  say("— itemsInCart = 1")
  viewModel.itemsInCart = 1
  say("— stockLevel = 0")
  viewModel.stockLevel = 0
  say("— subscription released; stockLevel = 5 prints nothing")
  availabilitySubscription = nil
  viewModel.stockLevel = 5
  _ = availabilitySubscription
}
