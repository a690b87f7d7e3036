import MacroTesting
import Testing

/// Note: swift-syntax's test expander drops a property's initial value once accessors are
/// added (`var count: Int = 0` shows as `var count: Int {`). The compiler keeps it and
/// passes it to the init accessor, which is what creates the node; the behaviour tests in
/// StateGraphTests check that path.
@Suite(.macros(graphMacros, indentationWidth: .spaces(2)))
struct GraphStoredMacroTests {
  @Test func initialValueFlowsThroughTheInitAccessor() {
    assertMacro {
      """
      final class CounterViewModel {
        @GraphStored var count: Int = 0
      }
      """
    } expansion: {
      """
      final class CounterViewModel {
        var count: Int {
          @storageRestrictions(initializes: _count)
          init(initialValue) {
            _count = .init(name: "count", wrappedValue: initialValue)
          }
          get {
            _count.wrappedValue
          }
          set {
            _count.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _count: StateGraph.Stored<Int>

        @GraphIgnored var $count: StateGraph.Stored<Int> {
          @storageRestrictions(initializes: _count)
          init(initialValue) {
            _count = initialValue
          }
          get {
            _count
          }
          set {
            _count = newValue
          }
        }
      }
      """
    }
  }

  @Test func withoutInitialValueTheInitializerAssigns() {
    assertMacro {
      """
      final class Author {
        @GraphStored
        var name: String

        init(name: String) {
          self.name = name
        }
      }
      """
    } expansion: {
      """
      final class Author {
        var name: String {
          @storageRestrictions(initializes: _name)
          init(initialValue) {
            _name = .init(name: "name", wrappedValue: initialValue)
          }
          get {
            _name.wrappedValue
          }
          set {
            _name.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _name: StateGraph.Stored<String>

        @GraphIgnored var $name: StateGraph.Stored<String> {
          @storageRestrictions(initializes: _name)
          init(initialValue) {
            _name = initialValue
          }
          get {
            _name
          }
          set {
            _name = newValue
          }
        }

        init(name: String) {
          self.name = name
        }
      }
      """
    }
  }

  @Test func optionalsWithoutInitialValueStartAsNil() {
    assertMacro {
      """
      final class PostDetailViewModel {
        @GraphStored var selectedPostId: String?
        @GraphStored var draft: Optional<String>
        @GraphStored var user: User!
      }
      """
    } expansion: {
      """
      final class PostDetailViewModel {
        var selectedPostId: String? {
          @storageRestrictions(initializes: _selectedPostId)
          init(initialValue) {
            _selectedPostId = .init(name: "selectedPostId", wrappedValue: initialValue)
          }
          get {
            _selectedPostId.wrappedValue
          }
          set {
            _selectedPostId.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _selectedPostId: StateGraph.Stored<String?> = .init(name: "selectedPostId", wrappedValue: nil)

        @GraphIgnored var $selectedPostId: StateGraph.Stored<String?> {
          @storageRestrictions(initializes: _selectedPostId)
          init(initialValue) {
            _selectedPostId = initialValue
          }
          get {
            _selectedPostId
          }
          set {
            _selectedPostId = newValue
          }
        }
        var draft: Optional<String> {
          @storageRestrictions(initializes: _draft)
          init(initialValue) {
            _draft = .init(name: "draft", wrappedValue: initialValue)
          }
          get {
            _draft.wrappedValue
          }
          set {
            _draft.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _draft: StateGraph.Stored<Optional<String>> = .init(name: "draft", wrappedValue: nil)

        @GraphIgnored var $draft: StateGraph.Stored<Optional<String>> {
          @storageRestrictions(initializes: _draft)
          init(initialValue) {
            _draft = initialValue
          }
          get {
            _draft
          }
          set {
            _draft = newValue
          }
        }
        var user: User! {
          @storageRestrictions(initializes: _user)
          init(initialValue) {
            _user = .init(name: "user", wrappedValue: initialValue)
          }
          get {
            _user.wrappedValue
          }
          set {
            _user.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _user: StateGraph.Stored<User?> = .init(name: "user", wrappedValue: nil)

        @GraphIgnored var $user: StateGraph.Stored<User?> {
          @storageRestrictions(initializes: _user)
          init(initialValue) {
            _user = initialValue
          }
          get {
            _user
          }
          set {
            _user = newValue
          }
        }
      }
      """
    }
  }

  @Test func accessModifiersCarryOverToTheNode() {
    assertMacro {
      """
      public final class Settings {
        @GraphStored public var theme: String = "light"
        @GraphStored public private(set) var version: Int = 1
        @GraphStored private var token: String?
        @GraphStored fileprivate var cache: [String] = []
      }
      open class Base {
        @GraphStored open var title: String = ""
      }
      """
    } expansion: {
      """
      public final class Settings {
        public var theme: String {
          @storageRestrictions(initializes: _theme)
          init(initialValue) {
            _theme = .init(name: "theme", wrappedValue: initialValue)
          }
          get {
            _theme.wrappedValue
          }
          set {
            _theme.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _theme: StateGraph.Stored<String>

        @GraphIgnored public var $theme: StateGraph.Stored<String> {
          @storageRestrictions(initializes: _theme)
          init(initialValue) {
            _theme = initialValue
          }
          get {
            _theme
          }
          set {
            _theme = newValue
          }
        }
        public private(set) var version: Int {
          @storageRestrictions(initializes: _version)
          init(initialValue) {
            _version = .init(name: "version", wrappedValue: initialValue)
          }
          get {
            _version.wrappedValue
          }
          set {
            _version.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _version: StateGraph.Stored<Int>

        @GraphIgnored public private(set) var $version: StateGraph.Stored<Int> {
          @storageRestrictions(initializes: _version)
          init(initialValue) {
            _version = initialValue
          }
          get {
            _version
          }
          set {
            _version = newValue
          }
        }
        private var token: String? {
          @storageRestrictions(initializes: _token)
          init(initialValue) {
            _token = .init(name: "token", wrappedValue: initialValue)
          }
          get {
            _token.wrappedValue
          }
          set {
            _token.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _token: StateGraph.Stored<String?> = .init(name: "token", wrappedValue: nil)

        @GraphIgnored private var $token: StateGraph.Stored<String?> {
          @storageRestrictions(initializes: _token)
          init(initialValue) {
            _token = initialValue
          }
          get {
            _token
          }
          set {
            _token = newValue
          }
        }
        fileprivate var cache: [String] {
          @storageRestrictions(initializes: _cache)
          init(initialValue) {
            _cache = .init(name: "cache", wrappedValue: initialValue)
          }
          get {
            _cache.wrappedValue
          }
          set {
            _cache.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _cache: StateGraph.Stored<[String]>

        @GraphIgnored fileprivate var $cache: StateGraph.Stored<[String]> {
          @storageRestrictions(initializes: _cache)
          init(initialValue) {
            _cache = initialValue
          }
          get {
            _cache
          }
          set {
            _cache = newValue
          }
        }
      }
      open class Base {
        open var title: String {
          @storageRestrictions(initializes: _title)
          init(initialValue) {
            _title = .init(name: "title", wrappedValue: initialValue)
          }
          get {
            _title.wrappedValue
          }
          set {
            _title.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _title: StateGraph.Stored<String>

        @GraphIgnored public var $title: StateGraph.Stored<String> {
          @storageRestrictions(initializes: _title)
          init(initialValue) {
            _title = initialValue
          }
          get {
            _title
          }
          set {
            _title = newValue
          }
        }
      }
      """
    }
  }

  @Test func structSetterIsNonmutating() {
    assertMacro {
      """
      struct Counter {
        @GraphStored var count: Int = 0
      }
      """
    } expansion: {
      """
      struct Counter {
        var count: Int {
          @storageRestrictions(initializes: _count)
          init(initialValue) {
            _count = .init(name: "count", wrappedValue: initialValue)
          }
          get {
            _count.wrappedValue
          }
          nonmutating set {
            _count.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _count: StateGraph.Stored<Int>

        @GraphIgnored var $count: StateGraph.Stored<Int> {
          @storageRestrictions(initializes: _count)
          init(initialValue) {
            _count = initialValue
          }
          get {
            _count
          }
          set {
            _count = newValue
          }
        }
      }
      """
    }
  }

  @Test func genericAndEscapedNames() {
    assertMacro {
      """
      final class Box<Element> {
        @GraphStored var value: Element
        @GraphStored var `default`: [Element] = []
      }
      """
    } expansion: {
      """
      final class Box<Element> {
        var value: Element {
          @storageRestrictions(initializes: _value)
          init(initialValue) {
            _value = .init(name: "value", wrappedValue: initialValue)
          }
          get {
            _value.wrappedValue
          }
          set {
            _value.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _value: StateGraph.Stored<Element>

        @GraphIgnored var $value: StateGraph.Stored<Element> {
          @storageRestrictions(initializes: _value)
          init(initialValue) {
            _value = initialValue
          }
          get {
            _value
          }
          set {
            _value = newValue
          }
        }
        var `default`: [Element] {
          @storageRestrictions(initializes: _default)
          init(initialValue) {
            _default = .init(name: "default", wrappedValue: initialValue)
          }
          get {
            _default.wrappedValue
          }
          set {
            _default.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _default: StateGraph.Stored<[Element]>

        @GraphIgnored var $default: StateGraph.Stored<[Element]> {
          @storageRestrictions(initializes: _default)
          init(initialValue) {
            _default = initialValue
          }
          get {
            _default
          }
          set {
            _default = newValue
          }
        }
      }
      """
    }
  }

  @Test func severalModelsInOneFile() {
    assertMacro {
      """
      final class DataService {
        @GraphStored var items: [Item] = []
      }
      final class ViewModel {
        @GraphStored var items: [Item]
      }
      """
    } expansion: {
      """
      final class DataService {
        var items: [Item] {
          @storageRestrictions(initializes: _items)
          init(initialValue) {
            _items = .init(name: "items", wrappedValue: initialValue)
          }
          get {
            _items.wrappedValue
          }
          set {
            _items.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _items: StateGraph.Stored<[Item]>

        @GraphIgnored var $items: StateGraph.Stored<[Item]> {
          @storageRestrictions(initializes: _items)
          init(initialValue) {
            _items = initialValue
          }
          get {
            _items
          }
          set {
            _items = newValue
          }
        }
      }
      final class ViewModel {
        var items: [Item] {
          @storageRestrictions(initializes: _items)
          init(initialValue) {
            _items = .init(name: "items", wrappedValue: initialValue)
          }
          get {
            _items.wrappedValue
          }
          set {
            _items.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _items: StateGraph.Stored<[Item]>

        @GraphIgnored var $items: StateGraph.Stored<[Item]> {
          @storageRestrictions(initializes: _items)
          init(initialValue) {
            _items = initialValue
          }
          get {
            _items
          }
          set {
            _items = newValue
          }
        }
      }
      """
    }
  }
}
