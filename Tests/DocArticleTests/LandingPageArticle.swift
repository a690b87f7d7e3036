// Keeps the code of the three catalogs' landing pages (StateGraph.docc/StateGraph.md,
// StateGraphNormalization.docc/StateGraphNormalization.md,
// TypedIdentifier.docc/TypedIdentifier.md) compiling and checked.
import StateGraphNormalization
import Testing
import TypedIdentifier

final class CartModel {
  @GraphStored var prices: [Double] = []
  @GraphStored var taxRate: Double = 0.08
  @GraphComputed var total: Double

  init() {
    self.$total = .init { [$prices, $taxRate] _ in
      $prices.wrappedValue.reduce(0, +) * (1 + $taxRate.wrappedValue)
    }
  }
}

@Suite struct LandingPageArticleTests {
  @Test func cart() {
    let cart = CartModel()
    cart.prices = [10, 15]
    #expect(abs(cart.total - 27) < 1e-9)
  }
}

/// The README's short tour, which uses the landing page's model.
@Suite struct ReadmeTourTests {
  @Test func tour() {
    let lines = printedLines {
      let cart = CartModel()
      let subscription = withGraphTracking {
        cart.$total.onChange { total in print("total: \(total)") }
      }
      withGraphBatch {
        cart.prices.append(10)
        cart.prices.append(15)
      }
      withExtendedLifetime(subscription) {}
    }
    #expect(lines.count == 2)
    #expect(lines.first == "total: 0.0")
    #expect(lines.last?.hasPrefix("total: 27.0") == true)
  }
}

/// The README's persistence sample: both spellings of a persisted property in one model.
enum ReadmePersistence {
  final class Settings {
    @GraphStored(backed: .userDefaults(key: "appTheme")) var theme: String = "light"
    @GraphUserDefault("fontSize") var fontSize: Double = 14
  }
}

@Suite struct ReadmePersistenceTests {
  @Test func bothSpellingsArePersistedStoredNodes() {
    let settings = ReadmePersistence.Settings()
    let theme: Stored<String> = settings.$theme
    #expect(theme.wrappedValue == settings.theme)
    #expect(settings.fontSize.isFinite)
  }
}
