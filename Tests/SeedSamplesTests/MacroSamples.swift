// The macro models of upstream swift-state-graph's README and guides, as written, with
// the values their comments promise.
import StateGraph
import Testing

// The demo's models (CounterViewModel, PersonViewModel, CartItem and ShoppingCartViewModel,
// Author, Tag and Book) are these samples as written; they are checked here from there.
@testable import StateGraphDemoModels

enum StoredMacroSample {
  final class CounterViewModel {
    @GraphStored
    var count: Int = 0
  }

  final class MyObject {
    @GraphStored
    var count: Int = 0
  }

  final class MyViewModel {
    @GraphStored var count: Int = 0
  }

  final class ViewModel {
    @GraphStored var count: Int = 0  // In-memory storage
  }
}

enum UIKitSample {
  final class CounterViewModel {
    @GraphStored
    var count: Int = 0

    @GraphComputed
    var isEven: Bool

    init() {
      self.$isEven = .init { [$count] _ in
        $count.wrappedValue % 2 == 0
      }
    }
  }
}

final class UserProfile {
  @GraphStored
  var name: String = ""

  @GraphStored
  var email: String = ""

  @GraphStored
  var age: Int = 0
}

/// 003 "Cascade Updates": subtotal from prices only.
enum CascadeSample {
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
      // subtotal depends on items
      self.$subtotal = .init { [$items] _ in
        $items.wrappedValue.reduce(0) { $0 + $1.price }
      }

      // tax depends on subtotal and taxRate
      self.$tax = .init { [$subtotal, $taxRate] _ in
        $subtotal.wrappedValue * $taxRate.wrappedValue
      }

      // total depends on subtotal and tax
      self.$total = .init { [$subtotal, $tax] _ in
        $subtotal.wrappedValue + $tax.wrappedValue
      }
    }
  }
}

/// 000 "Complex Dependencies Migration" (its `ShoppingCartViewModel`, with quantities, is
/// the demo's).
enum MigrationSample {
  final class UserViewModel {
    @GraphStored
    var name: String = ""

    @GraphStored
    var email: String = ""

    @GraphComputed
    var isValid: Bool

    init() {
      self.$isValid = .init { [$name, $email] _ in
        !$name.wrappedValue.isEmpty && $email.wrappedValue.contains("@")
      }
    }
  }
}

@available(iOS 17.0, *)
final class AppState: GraphObject {
  @GraphStored var count: Int = 0
  @GraphStored var userName: String = ""

  @GraphComputed var displayName: String

  init() {
    self.$displayName = .init { [$userName] _ in
      $userName.wrappedValue.isEmpty ? "Anonymous" : $userName.wrappedValue
    }
  }
}

// Sharing state between objects (000).
struct Item: Equatable { var name: String }

final class DataService {
  @GraphStored var items: [Item] = []
  @GraphStored var isLoading: Bool = false
}

final class SharingViewModel {
  @GraphStored var items: [Item]
  @GraphStored var isLoading: Bool

  init(service: DataService) {
    // Simply pass @GraphStored directly
    self.$items = service.$items
    self.$isLoading = service.$isLoading
  }
}

@Suite("Upstream samples: macro models")
struct MacroSamples {
  @Test func quickStartCounter() {
    let viewModel = CounterViewModel(count: 3)
    #expect(viewModel.isEven == false)
    viewModel.increment()
    #expect(viewModel.count == 4)
    #expect(viewModel.isEven == true)
  }

  @Test func storedMacroUsage() {
    let viewModel = StoredMacroSample.CounterViewModel()
    viewModel.count += 1
    #expect(viewModel.count == 1)
    #expect(viewModel.$count.wrappedValue == 1)
    #expect(viewModel.$count.name == "count")
    let object = StoredMacroSample.MyObject()
    object.count += 1
    #expect(object.count == 1)
  }

  @Test func uiKitCounter() {
    let viewModel = UIKitSample.CounterViewModel()
    #expect(viewModel.isEven)
    viewModel.count += 1
    #expect(!viewModel.isEven)
  }

  @Test func userProfile() {
    let profile = UserProfile()
    profile.name = "John Doe"
    profile.email = "john@example.com"
    profile.age = 30
    #expect((profile.name, profile.email, profile.age) == ("John Doe", "john@example.com", 30))
  }

  @Test func personViewModel() {
    let person = PersonViewModel()
    person.firstName = "john"
    person.lastName = "doe"
    #expect(person.fullName == "john doe")
    #expect(person.initials == "JD")
  }

  @Test func cascadeUpdates() {
    let cart = CascadeSample.ShoppingCartViewModel()
    cart.items = [CartItem(name: "A", price: 100), CartItem(name: "B", price: 50)]
    #expect(cart.subtotal == 150)
    #expect(abs(cart.tax - 12) < 1e-9)
    #expect(abs(cart.total - 162) < 1e-9)
    cart.taxRate = 0.1
    #expect(abs(cart.total - 165) < 1e-9)
  }

  @Test func migrationCart() {
    let cart = ShoppingCartViewModel()
    cart.items = [CartItem(name: "A", price: 10, quantity: 3)]
    #expect(cart.subtotal == 30)
    #expect(abs(cart.total - 32.4) < 1e-9)
  }

  @Test func userValidation() {
    let user = MigrationSample.UserViewModel()
    #expect(!user.isValid)
    user.name = "Ann"
    #expect(!user.isValid)
    user.email = "ann@example.com"
    #expect(user.isValid)
  }

  @Test func appStateDisplayName() {
    let state = AppState()
    #expect(state.displayName == "Anonymous")
    state.userName = "Kim"
    #expect(state.displayName == "Kim")
    state.count += 1
    #expect(state.count == 1)
  }

  @Test func library() {
    // Creating a library collection
    let johnAuthor = Author(name: "John Smith")
    let programmingTag = Tag(name: "Programming")
    let swiftTag = Tag(name: "Swift")

    let book = Book(
      author: johnAuthor,
      title: "Swift Programming",
      tags: [programmingTag, swiftTag]
    )

    // Creating a stored collection
    let libraryCollection = Stored(wrappedValue: [book])

    // Creating a computed collection filtered by author
    let booksByJohn = Computed { _ in
      libraryCollection.wrappedValue.filter {
        $0.author.name == "John Smith"
      }
    }

    // Adding a new book automatically updates the filtered collection
    let newBook = Book(
      author: johnAuthor,
      title: "Advanced Swift",
      tags: [programmingTag, swiftTag]
    )
    libraryCollection.wrappedValue.append(newBook)

    #expect(booksByJohn.wrappedValue.count == 2) // 2
  }

  @Test func sharingStateBetweenObjects() {
    let service = DataService()
    let viewModel = SharingViewModel(service: service)
    service.items = [Item(name: "a")]
    #expect(viewModel.items == [Item(name: "a")])
    viewModel.isLoading = true
    #expect(service.isLoading)
    #expect(viewModel.$items === service.$items)
  }
}

// 000 "Complete Example" declares `@Observable final class ShoppingCartModel:
// GraphObject`. Apple's @Observable cannot wrap properties that @GraphStored
// already gave accessors (the compiler reports it; our macro adds a message
// saying what to write instead), so the supported spelling drops @Observable:
@available(iOS 17.0, *)
final class ShoppingCartModel: GraphObject {
  @GraphStored var items: [CartItem] = []
  @GraphStored var taxRate: Double = 0.08

  @GraphComputed var subtotal: Double
  @GraphComputed var tax: Double
  @GraphComputed var total: Double

  init() {
    self.$subtotal = .init { [$items] _ in
      $items.wrappedValue.reduce(0) { $0 + $1.price }
    }

    self.$tax = .init { [$subtotal, $taxRate] _ in
      $subtotal.wrappedValue * $taxRate.wrappedValue
    }

    self.$total = .init { [$subtotal, $tax] _ in
      $subtotal.wrappedValue + $tax.wrappedValue
    }
  }
}

import Observation

@Suite("Upstream samples: GraphObject")
struct GraphObjectSamples {
  @Test func shoppingCartModelIsObservable() {
    let cart = ShoppingCartModel()
    let fired = Counter()
    let total = withObservationTracking { cart.total } onChange: { fired.tick() }
    #expect(total == 0)
    cart.items = [CartItem(name: "Book", price: 100)]
    #expect(fired.value == 1)
    #expect(abs(cart.total - 108) < 1e-9)
  }
}
