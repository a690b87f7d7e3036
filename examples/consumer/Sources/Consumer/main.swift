// Uses StateGraph as an app would: the macros, observation, a batch, a persisted value
// (in a scratch suite) and the normalization module. `expected-output.txt` next to
// Package.swift is what it must print.
import ConsumerMacros
import Foundation
import StateGraph
import StateGraphNormalization

final class Cart: GraphObject {
  @GraphStored var prices: [Int] = []
  @GraphStored var discount: Int = 0
  @GraphComputed var total: Int

  init() {
    self.$total = .init { [$prices, $discount] _ in
      $prices.wrappedValue.reduce(0, +) - $discount.wrappedValue
    }
  }
}

final class Settings {
  @GraphStored(backed: .userDefaults(suite: "StateGraphConsumer", key: "volume"))
  var volume: Double = 0.5
}

// The Swift 6 mode (this package's) wants entities Sendable, since computations that read
// the store run on any thread: a class whose state is @GraphStored is thread-safe through its
// nodes, but the macro's storage is a `var`, hence @unchecked.
final class Author: TypedIdentifiable, @unchecked Sendable {
  typealias TypedIdentifierRawValue = String
  let typedID: TypedID
  @GraphStored var name: String

  init(id: String, name: String) {
    self.typedID = .init(id)
    self.name = name
  }
}

let cart = Cart()
let subscription = withGraphTracking {
  cart.$total.onChange { total in
    let (label, value) = #labeled(total)
    print("\(label) = \(value)")
  }
}
cart.prices.append(30)
withGraphBatch {
  cart.prices.append(20)
  cart.discount = 5
}

UserDefaults.standard.removePersistentDomain(forName: "StateGraphConsumer")
let settings = Settings()
settings.volume = 0.8
print("volume read back: \(Settings().volume)")
UserDefaults.standard.removePersistentDomain(forName: "StateGraphConsumer")

let authors = EntityStore<Author>()
let names = Computed { _ in authors.getAll().map(\.name).sorted() }
authors.add([Author(id: "a", name: "Ada"), Author(id: "b", name: "Brian")])
authors.modify("a") { $0.name = "Ada L." }
print("authors: \(names.wrappedValue.joined(separator: ", "))")
subscription.cancel()
