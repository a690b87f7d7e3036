// Keeps the code of StateGraph.docc/ThreadsAndObserverOrder.md compiling and checked.
import Foundation
import StateGraph
import Testing

struct OutOfStock: Error {}

@MainActor
final class CartScreen {
  let total: Computed<Int>
  var label = ""
  var subscription: StateGraphSubscription?

  init(total: Computed<Int>) {
    self.total = total
    subscription = withGraphTracking {
      total.onChange { [weak self] value in
        self?.label = "Total: \(value)"
      }
    }
  }
}

@Suite struct ThreadsArticleTests {
  @MainActor @Test(.timeLimit(.minutes(1))) func synchronousDelivery() async {
    let balance = Stored(wrappedValue: 0)
    let audit = Recorder<Int>()
    let auditing = withGraphTracking(delivery: .synchronous) {
      withGraphTrackingGroup { audit.append(balance.wrappedValue) }
    }
    balance.wrappedValue = 10
    balance.wrappedValue = 25
    #expect(audit.values == [0, 10, 25])

    balance.wrappedValue = 0
    let scheduled = Recorder<Int>()
    let later = withGraphTracking {
      withGraphTrackingGroup { scheduled.append(balance.wrappedValue) }  // on the main actor
    }
    balance.wrappedValue = 10
    balance.wrappedValue = 25
    #expect(scheduled.values == [0])
    await later.settled()
    #expect(scheduled.values == [0, 25])
    withExtendedLifetime(auditing) {}
  }


  @Test func batchesAndRollback() {
    let lines = printedLines {
      let cart = Stored(wrappedValue: [Int]())
      let discount = Stored(wrappedValue: 0)
      let total = Computed { _ in cart.wrappedValue.reduce(0, +) - discount.wrappedValue }
      let subscription = withGraphTracking {
        total.onChange { print("total: \($0)") }
      }
      withGraphBatch {
        cart.wrappedValue.append(30)
        cart.wrappedValue.append(20)
        discount.wrappedValue = 5
      }

      do {
        try withGraphBatch {
          cart.wrappedValue.append(99)
          throw OutOfStock()
        }
      } catch {
        print("rolled back: \(cart.wrappedValue)")
      }
      withExtendedLifetime(subscription) {}
    }
    #expect(lines == ["total: 0", "total: 45", "rolled back: [30, 20]"])
  }

  @MainActor @Test func mainActorHandler() async {
    let price = Stored(wrappedValue: 10)
    let total = Computed { _ in price.wrappedValue * 2 }
    let screen = CartScreen(total: total)
    // Delivered on the main actor: at once when the test runs on the main thread,
    // after a hop when the main actor is running elsewhere.
    for _ in 0..<200 where screen.label != "Total: 20" {
      try? await Task.sleep(nanoseconds: 10_000_000)
    }
    #expect(screen.label == "Total: 20")
    await Task.detached { price.wrappedValue = 21 }.value
    for _ in 0..<200 where screen.label != "Total: 42" {
      try? await Task.sleep(nanoseconds: 10_000_000)
    }
    #expect(screen.label == "Total: 42")
  }
}
