// Keeps the code of StateGraph.docc/MigratingFromSwiftStateGraph.md compiling and checked.
import StateGraph
import Testing

final class Player {
  @GraphStored var volume: Double = 0.5
  private var subscription: StateGraphSubscription?

  init() {
    subscription = withGraphTracking {
      $volume.onChange { volume in
        print("volume is now \(volume)")
      }
    }
  }
}

@Suite struct MigrationArticleTests {
  @Test func distinctValues() {
    let lines = printedLines {
      let stock = Stored(wrappedValue: 10)
      let inCart = Stored(wrappedValue: 0)
      let subscription = withGraphTracking {
        Computed { _ in stock.wrappedValue > inCart.wrappedValue }
          .onChange { print("available: \($0)") }
      }
      inCart.wrappedValue = 1
      inCart.wrappedValue = 10
      withExtendedLifetime(subscription) {}
    }
    #expect(lines == ["available: true", "available: false"])
  }

  @Test func didSetReplacement() {
    let lines = printedLines {
      let player = Player()
      player.volume = 0.7
    }
    #expect(lines == ["volume is now 0.5", "volume is now 0.7"])
  }
}
