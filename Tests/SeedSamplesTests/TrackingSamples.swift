// The observation samples of upstream swift-state-graph's README ("Advanced Usage",
// "Migration") and guide ("withGraphTrackingGroup"), with print replaced by a log.
import StateGraph
import Testing

@testable import StateGraphDemoModels  // StoreViewModel, the demo's model of this sample

let log = PrintLog()

final class LoginModel {
  @GraphStored var isLoggedIn: Bool = false
}

final class AnalyticsService {
  var events: [String] = []
  func logEvent(_ name: String) { events.append(name) }
}

struct Todo { var isCompleted: Bool }

final class Repository {
  @GraphStored var items: [Todo] = []
}

final class NotificationService {
  var sent = 0
  func sendCompletionNotification() { sent += 1 }
}

final class AuthService { @GraphStored var isAuthorized: Bool = false }
final class NetworkMonitor { @GraphStored var isConnected: Bool = false }
final class SyncService { @GraphStored var canSync: Bool = false }

struct ProcessorItem {}
struct ProcessorUser { var isPremium: Bool }

final class DataProcessor {
  @GraphStored var isEnabled: Bool = false
  @GraphStored var data: [ProcessorItem] = []
  @GraphStored var user: ProcessorUser?
}

final class ViewController {
  private let viewModel = MigrationSample.UserViewModel()
  private var subscription: AnyCancellable?
  var labels: [String] = []

  var model: MigrationSample.UserViewModel { viewModel }

  func setupObservation() {
    subscription = withGraphTracking {
      viewModel.$name.onChange { [weak self] name in
        self?.updateNameLabel(name)
      }

      viewModel.$email.onChange { [weak self] email in
        self?.updateEmailField(email)
      }

      viewModel.$isValid.onChange { [weak self] isValid in
        self?.updateSubmitButton(isValid)
      }
    }
  }

  private func updateNameLabel(_ name: String) { labels.append("name:\(name)") }
  private func updateEmailField(_ email: String) { labels.append("email:\(email)") }
  private func updateSubmitButton(_ isValid: Bool) { labels.append("valid:\(isValid)") }
}

@Suite("Upstream samples: tracking", .serialized)
struct TrackingSamples {
  @Test func productAvailability() {
    _ = log.take()
    let viewModel = StoreViewModel()

    // Subscription to track product availability
    // Keep this subscription instance to keep tracking active.
    var availabilitySubscription: AnyCancellable?

    availabilitySubscription = withGraphTracking {
      // Computed node to determine if the product can be added to cart
      Computed { _ in
        // This computation runs when `stockLevel` or `itemsInCart` changes.
        viewModel.stockLevel > viewModel.itemsInCart
      }
      .onChange { isAvailable in
        // This block is called when the `isAvailable` value changes.
        if isAvailable {
          log.append("✅ Product is available to add to cart.")
        } else {
          log.append("⚠️ Product is out of stock or cart limit reached.")
        }
      }

      // Observe changes in stock level directly
      viewModel.$stockLevel.onChange { newStock in
        log.append("📦 Stock level updated: \(newStock)")
      }

      // Observe changes in items in cart directly
      viewModel.$itemsInCart.onChange { items in
        log.append("🛒 Items in cart updated: \(items)")
      }
    }
    // Registration delivers each handler's current value.
    #expect(log.take() == [
      "✅ Product is available to add to cart.",
      "📦 Stock level updated: 10",
      "🛒 Items in cart updated: 0",
    ])

    // Simulate adding an item to the cart
    viewModel.itemsInCart = 1
    // Still available (10 > 1): the availability handler only hears of changes.
    #expect(log.take() == ["🛒 Items in cart updated: 1"])

    // Simulate stock running out
    viewModel.stockLevel = 0
    #expect(log.take() == [
      "📦 Stock level updated: 0",
      "⚠️ Product is out of stock or cart limit reached.",
    ])

    // To stop tracking, set the subscription to nil
    availabilitySubscription = nil
    viewModel.stockLevel = 3
    #expect(log.take() == [])
    _ = availabilitySubscription
  }

  @Test func stateGraphSubscriptionSpelling() {
    let viewModel = StoreViewModel()
    var availabilitySubscription: StateGraphSubscription?
    availabilitySubscription = withGraphTracking {
      viewModel.$stockLevel.onChange { _ in }
    }
    #expect(availabilitySubscription != nil)
  }

  @Test func usagePatterns() {
    let model = LoginModel()
    let analyticsService = AnalyticsService()
    var subscription: AnyCancellable?
    subscription = withGraphTracking {
      model.$isLoggedIn.onChange { isLoggedIn in
        if isLoggedIn {
          analyticsService.logEvent("user_login")
        }
      }
    }
    model.isLoggedIn = true
    #expect(analyticsService.events == ["user_login"])

    let repository = Repository()
    let notificationService = NotificationService()
    subscription = withGraphTracking {
      Computed { _ in
        repository.items.filter { $0.isCompleted }.count
      }
      .onChange { completedCount in
        if completedCount == repository.items.count {
          notificationService.sendCompletionNotification()
        }
      }
    }
    #expect(notificationService.sent == 1)  // 0 of 0 done at registration
    repository.items = [Todo(isCompleted: false), Todo(isCompleted: false)]
    repository.items[0].isCompleted = true
    repository.items[1].isCompleted = true
    #expect(notificationService.sent == 2)

    let authService = AuthService()
    let networkMonitor = NetworkMonitor()
    let syncService = SyncService()
    subscription = withGraphTracking {
      Computed { _ in
        (authService.isAuthorized, networkMonitor.isConnected)
      }
      .onChange { (isAuthorized, isConnected) in
        syncService.canSync = isAuthorized && isConnected
      }
    }
    authService.isAuthorized = true
    #expect(!syncService.canSync)
    networkMonitor.isConnected = true
    #expect(syncService.canSync)
    _ = subscription
  }

  @Test func viewControllerMigration() {
    let controller = ViewController()
    controller.setupObservation()
    #expect(controller.labels == ["name:", "email:", "valid:false"])
    controller.labels = []
    controller.model.name = "Ann"
    controller.model.email = "ann@example.com"
    #expect(controller.labels == ["name:Ann", "email:ann@example.com", "valid:true"])
  }

  /// Re-runs are scheduled (never inside the write); the test waits for them.
  @Test(.timeLimit(.minutes(1))) func trackingGroupHowItWorks() async {
    _ = log.take()
    let counter = Stored(wrappedValue: 0)
    let featureEnabled = Stored(wrappedValue: false)
    let featureData = Stored(wrappedValue: "data")

    let subscription = withGraphTracking {
      withGraphTrackingGroup {
        // This code runs initially and re-runs when any accessed node changes

        // Always tracked
        log.append("Count: \(counter.wrappedValue)")

        // Conditionally tracked - only when enabled
        if featureEnabled.wrappedValue {
          log.append("Feature data: \(featureData.wrappedValue)")
        }
      }
    }
    #expect(log.take() == ["Count: 0"])
    featureData.wrappedValue = "more"
    await subscription.settled()
    #expect(log.take() == [])
    featureEnabled.wrappedValue = true
    await subscription.settled()
    #expect(log.take() == ["Count: 0", "Feature data: more"])
    counter.wrappedValue = 1
    await subscription.settled()
    #expect(log.take() == ["Count: 1", "Feature data: more"])
    _ = subscription
  }

  @Test(.timeLimit(.minutes(1))) func dataProcessor() async {
    let processor = DataProcessor()
    let premium = Counter()
    let basic = Counter()
    let counts = Recorder<Int>()
    // The group's body runs in tasks of its own: what it calls is `@Sendable`.
    @Sendable func performPremiumAnalysis(_ items: [ProcessorItem]) { premium.tick() }
    @Sendable func performBasicAnalysis(_ items: [ProcessorItem]) { basic.tick() }
    @Sendable func updateItemCount(_ count: Int) { counts.append(count) }

    let subscription = withGraphTracking {
      withGraphTrackingGroup {
        // Only process when enabled
        if processor.isEnabled {
          let items = processor.data
          log.append("Processing \(items.count) items")

          // Only track premium features for premium users
          if processor.user?.isPremium == true {
            performPremiumAnalysis(items)
          } else {
            performBasicAnalysis(items)
          }
        }

        // Always update UI
        updateItemCount(processor.data.count)
      }
    }
    #expect(counts.values == [0])
    processor.user = ProcessorUser(isPremium: true)  // not read while disabled
    await subscription.settled()
    #expect(counts.values == [0])
    processor.isEnabled = true
    await subscription.settled()
    #expect((premium.value, basic.value) == (1, 0))
    processor.data = [ProcessorItem(), ProcessorItem()]
    await subscription.settled()
    #expect(counts.values == [0, 0, 2])
    #expect(premium.value == 2)
    _ = subscription
  }
}
