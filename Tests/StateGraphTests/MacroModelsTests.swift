import Observation
import StateGraph
import Testing

// Upstream swift-state-graph's README macro models, each with counters threaded into its computations so
// the tests can assert exactly how often each one runs. The models are nested in the
// suites so their upstream names do not clash with other test files. Models that a test's
// `@Sendable` computation captures are marked `@unchecked Sendable`, as Swift 6 mode asks.

@Suite("Macro models")
enum MacroModelsTests {}

extension MacroModelsTests {
  @Suite("CounterViewModel")
  struct CounterViewModelTests {
    final class CounterViewModel {
      @GraphStored
      var count: Int

      @GraphComputed
      var isEven: Bool

      init(count: Int, isEvenRuns: Counter = Counter()) {
        self.count = count
        self.$isEven = .init { [$count] _ in
          isEvenRuns.run($count.wrappedValue % 2 == 0)
        }
      }

      func increment() {
        count += 1
      }
    }

    final class DefaultCounterViewModel {
      @GraphStored
      var count: Int = 0
    }

    @Test func initialiserAssignsTheStoredValue() {
      let runs = Counter()
      let viewModel = CounterViewModel(count: 3, isEvenRuns: runs)
      #expect(viewModel.count == 3)
      #expect(viewModel.$count.name == "count")
      #expect(runs.value == 0)  // lazy until read
      #expect(viewModel.isEven == false)
      #expect(viewModel.isEven == false)
      #expect(runs.value == 1)

      viewModel.increment()
      #expect(viewModel.isEven)
      #expect(runs.value == 2)

      viewModel.count = 4  // equal value: nothing to recompute
      #expect(viewModel.isEven)
      #expect(runs.value == 2)
    }

    @Test func initialValueNeedsNoInitialiser() {
      let viewModel = DefaultCounterViewModel()
      #expect(viewModel.count == 0)
      viewModel.count += 1
      #expect(viewModel.count == 1)
      #expect(viewModel.$count.wrappedValue == 1)
    }
  }
}

extension MacroModelsTests {
  @Suite("UserProfile")
  struct UserProfileTests {
    final class UserProfile: @unchecked Sendable {
      @GraphStored
      var name: String = ""

      @GraphStored
      var email: String = ""

      @GraphStored
      var age: Int = 0
    }

    @Test func eachPropertyIsItsOwnNode() {
      let profile = UserProfile()
      profile.name = "John Doe"
      profile.email = "john@example.com"
      profile.age = 30
      #expect(profile.name == "John Doe")
      #expect(profile.email == "john@example.com")
      #expect(profile.age == 30)
      #expect([profile.$name.name, profile.$email.name, profile.$age.name] == ["name", "email", "age"])
    }

    @Test func computationsTrackOnlyWhatTheyRead() {
      let profile = UserProfile()
      let runs = Counter()
      let greeting = Computed { _ in runs.run("Hi \(profile.name)") }
      #expect(greeting.wrappedValue == "Hi ")
      profile.age = 31
      profile.email = "x@y"
      #expect(greeting.wrappedValue == "Hi ")
      #expect(runs.value == 1)
      profile.name = "Ann"
      #expect(greeting.wrappedValue == "Hi Ann")
      #expect(runs.value == 2)
    }
  }
}

extension MacroModelsTests {
  @Suite("PersonViewModel")
  struct PersonViewModelTests {
    final class PersonViewModel {
      @GraphStored
      var firstName: String = ""

      @GraphStored
      var lastName: String = ""

      @GraphComputed
      var fullName: String

      @GraphComputed
      var initials: String

      init(fullNameRuns: Counter = Counter(), initialsRuns: Counter = Counter()) {
        self.$fullName = .init { [$firstName, $lastName] _ in
          fullNameRuns.run("\($firstName.wrappedValue) \($lastName.wrappedValue)")
        }
        self.$initials = .init { [$firstName, $lastName] _ in
          initialsRuns.tick()
          let first = $firstName.wrappedValue.first?.uppercased() ?? ""
          let last = $lastName.wrappedValue.first?.uppercased() ?? ""
          return "\(first)\(last)"
        }
      }
    }

    @Test func fullNameAndInitialsFollowTheNames() {
      let fullNameRuns = Counter()
      let initialsRuns = Counter()
      let person = PersonViewModel(fullNameRuns: fullNameRuns, initialsRuns: initialsRuns)
      person.firstName = "john"
      person.lastName = "doe"
      #expect(person.fullName == "john doe")
      #expect(person.initials == "JD")
      #expect(fullNameRuns.value == 1)
      #expect(initialsRuns.value == 1)

      person.firstName = "jane"
      #expect(person.fullName == "jane doe")
      #expect(person.initials == "JD")
      #expect(fullNameRuns.value == 2)
      #expect(initialsRuns.value == 2)

      person.lastName = "doe"  // equal value
      #expect(person.fullName == "jane doe")
      #expect(fullNameRuns.value == 2)
    }
  }
}

extension MacroModelsTests {
  @Suite("ShoppingCartViewModel")
  struct ShoppingCartViewModelTests {
    struct CartItem: Equatable {
      var price: Double
      var quantity: Int
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

      init(subtotalRuns: Counter, taxRuns: Counter, totalRuns: Counter) {
        self.$subtotal = .init { [$items] _ in
          subtotalRuns.run($items.wrappedValue.reduce(0) { $0 + ($1.price * Double($1.quantity)) })
        }
        self.$tax = .init { [$subtotal, $taxRate] _ in
          taxRuns.run($subtotal.wrappedValue * $taxRate.wrappedValue)
        }
        self.$total = .init { [$subtotal, $tax] _ in
          totalRuns.run($subtotal.wrappedValue + $tax.wrappedValue)
        }
      }
    }

    let subtotalRuns = Counter()
    let taxRuns = Counter()
    let totalRuns = Counter()

    private func makeCart() -> ShoppingCartViewModel {
      ShoppingCartViewModel(subtotalRuns: subtotalRuns, taxRuns: taxRuns, totalRuns: totalRuns)
    }

    private var runs: [Int] { [subtotalRuns.value, taxRuns.value, totalRuns.value] }

    @Test func changesCascadeOncePerNode() {
      let cart = makeCart()
      #expect(cart.total == 0)
      #expect(runs == [1, 1, 1])

      cart.items = [CartItem(price: 10, quantity: 2)]
      #expect(cart.total == 20 + 20 * 0.08)
      #expect(cart.subtotal == 20)
      #expect(cart.tax == 20 * 0.08)
      #expect(runs == [2, 2, 2])
    }

    @Test func taxRateSkipsTheSubtotal() {
      let cart = makeCart()
      cart.items = [CartItem(price: 10, quantity: 2)]
      _ = cart.total
      cart.taxRate = 0.5
      #expect(cart.total == 30)
      #expect(runs == [1, 2, 2])
    }

    @Test func anUnchangedSubtotalStopsTheCascade() {
      let cart = makeCart()
      cart.items = [CartItem(price: 10, quantity: 2)]
      _ = cart.total
      cart.items = [CartItem(price: 20, quantity: 1)]
      #expect(cart.total == 20 + 20 * 0.08)
      #expect(runs == [2, 1, 1])
    }
  }
}

extension MacroModelsTests {
  @Suite("Author, Book and Tag")
  struct LibraryModelTests {
    final class Author: @unchecked Sendable {
      @GraphStored
      var name: String

      init(name: String) {
        self.name = name
      }
    }

    final class Tag: @unchecked Sendable {
      @GraphStored
      var name: String

      init(name: String) {
        self.name = name
      }
    }

    final class Book: @unchecked Sendable {
      let author: Author

      @GraphStored
      var title: String

      @GraphStored
      var tags: [Tag]

      init(author: Author, title: String, tags: [Tag]) {
        self.author = author
        self.title = title
        self.tags = tags
      }
    }

    @Test func filteredCollectionFollowsBooksAndAuthors() {
      let johnAuthor = Author(name: "John Smith")
      let programmingTag = Tag(name: "Programming")
      let swiftTag = Tag(name: "Swift")
      let book = Book(author: johnAuthor, title: "Swift Programming", tags: [programmingTag, swiftTag])

      let libraryCollection = Stored(wrappedValue: [book])
      let runs = Counter()
      let booksByJohn = Computed { _ in
        runs.run(libraryCollection.wrappedValue.filter { $0.author.name == "John Smith" })
      }
      #expect(booksByJohn.wrappedValue.count == 1)

      let newBook = Book(author: johnAuthor, title: "Advanced Swift", tags: [programmingTag, swiftTag])
      libraryCollection.wrappedValue.append(newBook)
      #expect(booksByJohn.wrappedValue.count == 2)
      #expect(runs.value == 2)

      // The filter read each author's name through the macro, so renaming is a change too.
      johnAuthor.name = "Jane Smith"
      #expect(booksByJohn.wrappedValue.isEmpty)
      #expect(runs.value == 3)

      // Titles were never read: editing one recomputes nothing.
      book.title = "Swift Programming, 2nd ed."
      #expect(booksByJohn.wrappedValue.isEmpty)
      #expect(runs.value == 3)
    }

    @Test func tagNamesAreNodesToo() {
      let tag = Tag(name: "Swift")
      let book = Book(author: Author(name: "A"), title: "T", tags: [tag])
      let runs = Counter()
      let tagNames = Computed { _ in runs.run(book.tags.map(\.name)) }
      #expect(tagNames.wrappedValue == ["Swift"])
      tag.name = "Swift 6"
      #expect(tagNames.wrappedValue == ["Swift 6"])
      #expect(runs.value == 2)
    }
  }
}

extension MacroModelsTests {
  @Suite("UserViewModel validation")
  struct UserViewModelTests {
    final class UserViewModel {
      @GraphStored
      var name: String = ""

      @GraphStored
      var email: String = ""

      @GraphComputed
      var isValid: Bool

      init(isValidRuns: Counter = Counter()) {
        self.$isValid = .init { [$name, $email] _ in
          isValidRuns.run(!$name.wrappedValue.isEmpty && $email.wrappedValue.contains("@"))
        }
      }
    }

    @Test func validationFollowsBothFields() {
      let runs = Counter()
      let viewModel = UserViewModel(isValidRuns: runs)
      #expect(viewModel.isValid == false)
      viewModel.name = "Ann"
      #expect(viewModel.isValid == false)
      viewModel.email = "ann@example.com"
      #expect(viewModel.isValid)
      #expect(runs.value == 3)
      #expect(viewModel.isValid)
      #expect(runs.value == 3)
    }

    // The migration guide's observer: each handler gets the current value, then each change.
    @Test func onChangeHandlersSeeEachChange() {
      let viewModel = UserViewModel()
      let names = Recorder<String>()
      let validity = Recorder<Bool>()
      let subscription = withGraphTracking {
        viewModel.$name.onChange { names.append($0) }
        viewModel.$isValid.onChange { validity.append($0) }
      }
      viewModel.name = "Ann"
      viewModel.email = "ann@example.com"
      #expect(names.values == ["", "Ann"])
      #expect(validity.values == [false, true])
      withExtendedLifetime(subscription) {}
    }
  }
}

extension MacroModelsTests {
  @Suite("Sharing a node between objects")
  struct SharedNodeTests {
    struct Item: Equatable {
      let id: Int
    }

    final class DataService: @unchecked Sendable {
      @GraphStored var items: [Item] = []
      @GraphStored var isLoading: Bool = false
    }

    final class ViewModel: @unchecked Sendable {
      @GraphStored var items: [Item]
      @GraphStored var isLoading: Bool

      init(service: DataService) {
        self.$items = service.$items
        self.$isLoading = service.$isLoading
      }
    }

    @Test func bothObjectsHoldOneNode() {
      let service = DataService()
      let viewModel = ViewModel(service: service)
      #expect(viewModel.$items === service.$items)
      #expect(viewModel.$isLoading === service.$isLoading)
    }

    @Test func writesThroughEitherObjectAreSeenByBoth() {
      let service = DataService()
      let viewModel = ViewModel(service: service)

      service.items = [Item(id: 1)]
      #expect(viewModel.items == [Item(id: 1)])

      viewModel.isLoading = true
      #expect(service.isLoading)

      viewModel.items.append(Item(id: 2))
      #expect(service.items == [Item(id: 1), Item(id: 2)])
    }

    @Test func computationsOnEitherSideRecomputeOnce() {
      let service = DataService()
      let viewModel = ViewModel(service: service)
      let serviceRuns = Counter()
      let viewModelRuns = Counter()
      let serviceCount = Computed { _ in serviceRuns.run(service.items.count) }
      let viewModelCount = Computed { _ in viewModelRuns.run(viewModel.items.count) }
      #expect(serviceCount.wrappedValue == 0)
      #expect(viewModelCount.wrappedValue == 0)

      viewModel.items = [Item(id: 1)]
      #expect(serviceCount.wrappedValue == 1)
      #expect(viewModelCount.wrappedValue == 1)
      service.items.append(Item(id: 2))
      #expect(serviceCount.wrappedValue == 2)
      #expect(viewModelCount.wrappedValue == 2)
      #expect(serviceRuns.value == 3)
      #expect(viewModelRuns.value == 3)
    }
  }
}

extension MacroModelsTests {
  @Suite("AppSettings welcome message")
  struct AppSettingsTests {
    // Upstream's model without `backed:`: persistence is the storage suite's business.
    final class AppSettings {
      @GraphStored
      var userName: String = ""

      @GraphComputed
      var welcomeMessage: String

      init(welcomeRuns: Counter = Counter()) {
        self.$welcomeMessage = .init { [$userName] _ in
          welcomeRuns.tick()
          let name = $userName.wrappedValue
          return name.isEmpty ? "Welcome!" : "Welcome, \(name)!"
        }
      }
    }

    @Test func welcomeMessageFollowsTheName() {
      let runs = Counter()
      let settings = AppSettings(welcomeRuns: runs)
      #expect(settings.welcomeMessage == "Welcome!")
      settings.userName = "Ann"
      #expect(settings.welcomeMessage == "Welcome, Ann!")
      #expect(runs.value == 2)
    }
  }
}

extension MacroModelsTests {
  @Suite("Computations that capture self in init")
  struct SelfCapturingModelTests {
    struct Post: Equatable {
      let authorId: String
      let title: String
    }

    final class PostStore: @unchecked Sendable {
      @GraphStored var posts: [Post] = []
    }

    // The normalization samples' shape: `self` is captured before every computed peer is
    // assigned, which works because the peers start out initialised.
    final class Author: @unchecked Sendable {
      let id: String
      @GraphStored var name: String
      @GraphComputed var posts: [Post]
      @GraphComputed var postCount: Int

      init(id: String, name: String, store: PostStore, postsRuns: Counter = Counter()) {
        self.id = id
        self.name = name
        self.$posts = .init { _ in
          postsRuns.run(store.posts.filter { $0.authorId == self.id })
        }
        self.$postCount = .init { [$posts] _ in
          $posts.wrappedValue.count
        }
      }
    }

    @Test func relationshipFollowsTheStore() {
      let store = PostStore()
      let runs = Counter()
      let author = Author(id: "alice", name: "Alice", store: store, postsRuns: runs)
      #expect(author.postCount == 0)
      store.posts = [Post(authorId: "alice", title: "Hello"), Post(authorId: "bob", title: "Hi")]
      #expect(author.postCount == 1)
      #expect(author.posts.map(\.title) == ["Hello"])
      #expect(runs.value == 2)
    }
  }
}

extension MacroModelsTests {
  @Suite("Structs, generics and optionals")
  struct ValueAndGenericModelTests {
    struct Point {
      @GraphStored var x: Int = 0
      @GraphStored var y: Int = 0
      @GraphComputed var sum: Int

      init() {
        self.$sum = .init { [$x, $y] _ in $x.wrappedValue + $y.wrappedValue }
      }
    }

    final class Box<Value: Sendable> {
      @GraphStored var value: Value
      @GraphStored var previous: Value?
      @GraphComputed var pair: [Value]

      init(_ value: Value) {
        self.value = value
        self.$pair = .init { [$value] _ in [$value.wrappedValue, $value.wrappedValue] }
      }
    }

    @Test func structSettersAreNonmutatingAndCopiesShareNodes() {
      let point = Point()  // a `let`: setting goes through the node
      let copy = point
      point.x = 2
      copy.y = 3
      #expect(point.sum == 5)
      #expect(copy.sum == 5)
    }

    /// `@GraphComputedNode`, swift-state-graph's other name: a node `init` is given.
    final class GivenNode {
      @GraphComputedNode var doubled: Int
      init(_ node: Computed<Int>) { $doubled = node }
    }

    struct GivenNodeValue {
      @GraphComputedNode var doubled: Int
      init(_ node: Computed<Int>) { $doubled = node }
    }

    @Test func aGivenNodeIsReadThroughThePropertyAndOutlivesItsOwner() {
      let count = Stored(wrappedValue: 1)
      let runs = Counter()
      let node = Computed { _ in runs.run(count.wrappedValue * 2) }
      weak var released: GivenNode?
      do {
        let model = GivenNode(node)
        released = model
        #expect(model.$doubled === node)
        #expect(runs.value == 0)
        #expect(model.doubled == 2)
        #expect(model.doubled == 2)
        #expect(runs.value == 1)
      }
      #expect(released == nil)
      count.wrappedValue = 4
      #expect(node.wrappedValue == 8)
      #expect(runs.value == 2)

      let value = GivenNodeValue(node)
      let copy = value
      #expect(value.$doubled === copy.$doubled)
      count.wrappedValue = 5
      #expect(copy.doubled == 10)
    }

    final class Unassigned {
      @GraphComputed var total: Int
    }

    @Test func readingAComputedBeforeItsAssignmentStops() async {
      let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
        _ = Unassigned().total
      }
      let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(message.contains("'total' was read before it was given a computation"))
      #expect(message.contains("assign 'self.$total = .init { _ in ... }' in init"))
    }

    @Test func genericAndOptionalValues() {
      let box = Box("a")
      #expect(box.previous == nil)
      #expect(box.pair == ["a", "a"])
      box.previous = box.value
      box.value = "b"
      #expect(box.previous == "a")
      #expect(box.pair == ["b", "b"])
      box.previous = nil
      #expect(box.previous == nil)
    }
  }
}

extension MacroModelsTests {
  @Suite("Observation")
  struct MacroObservationTests {
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

    // `@Observable` and the graph macros both generate accessors, so graph properties in an
    // `@Observable` class are written `@GraphStored @ObservationIgnored`; they stay observable
    // through their nodes.
    @Observable
    final class MixedModel: GraphObject {
      @GraphStored @ObservationIgnored var items: [Int] = []
      @GraphComputed @ObservationIgnored var total: Int
      var note: String = ""

      init() {
        self.$total = .init { [$items] _ in $items.wrappedValue.reduce(0, +) }
      }
    }

    @Test func storedPropertyChangesReachObservationTracking() {
      let state = AppState()
      let changes = Counter()
      withObservationTracking {
        _ = state.count
      } onChange: {
        changes.tick()
      }
      state.userName = "Ann"
      #expect(changes.value == 0)
      state.count = 1
      #expect(changes.value == 1)
    }

    @Test func computedPropertyChangesReachObservationTracking() {
      let state = AppState()
      let changes = Counter()
      withObservationTracking {
        _ = state.displayName
      } onChange: {
        changes.tick()
      }
      state.userName = "Ann"
      #expect(changes.value == 1)
      #expect(state.displayName == "Ann")
    }

    @Test func observableClassWithIgnoredGraphProperties() {
      let model = MixedModel()
      let graphChanges = Counter()
      let plainChanges = Counter()
      withObservationTracking {
        _ = model.total
      } onChange: {
        graphChanges.tick()
      }
      withObservationTracking {
        _ = model.note
      } onChange: {
        plainChanges.tick()
      }
      model.items = [1, 2, 3]
      #expect(model.total == 6)
      #expect(graphChanges.value == 1)
      model.note = "n"
      #expect(plainChanges.value == 1)
    }
  }
}
