import MacroTesting
import Testing

/// In a class that declares `Sendable`, the graph macros keep their nodes in `let`s: the
/// Swift 6 mode rejects a mutable stored property in such a class.
@Suite(.macros(graphMacros, indentationWidth: .spaces(2)))
struct SendableClassExpansionTests {
  @Test func storedWithoutValueIsInitialisedThroughEitherAccessor() {
    assertMacro {
      """
      final class Settings: Sendable {
        @GraphStored var title: String
      }
      """
    } expansion: {
      """
      final class Settings: Sendable {
        var title: String {
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

        @GraphIgnored private let _title: StateGraph.Stored<String>

        @GraphIgnored var $title: StateGraph.Stored<String> {
          @storageRestrictions(initializes: _title)
          init(initialValue) {
            _title = initialValue
          }
          get {
            _title
          }
        }
      }
      """
    }
  }

  @Test func storedWithValueOrOptionalHoldsItsNodeFromTheStart() {
    assertMacro {
      """
      final class Settings: Sendable {
        @GraphStored private(set) var count: Int = 0
        @GraphStored var note: String?
        @GraphStored(backed: .userDefaults(key: "theme")) var theme: String = "light"
      }
      """
    } expansion: {
      """
      final class Settings: Sendable {
        private(set) var count: Int {
          @storageRestrictions(accesses: _count)
          init(initialValue) {
          }
          get {
            _count.wrappedValue
          }
          set {
            _count.wrappedValue = newValue
          }
        }

        @GraphIgnored private let _count: StateGraph.Stored<Int> = .init(name: "count", wrappedValue: 0)

        @GraphIgnored var $count: StateGraph.Stored<Int> {
          _count
        }
        var note: String? {
          @storageRestrictions(accesses: _note)
          init(initialValue) {
          }
          get {
            _note.wrappedValue
          }
          set {
            _note.wrappedValue = newValue
          }
        }

        @GraphIgnored private let _note: StateGraph.Stored<String?> = .init(name: "note", wrappedValue: nil)

        @GraphIgnored var $note: StateGraph.Stored<String?> {
          _note
        }
        var theme: String {
          @storageRestrictions(accesses: _theme)
          init(initialValue) {
          }
          get {
            _theme.wrappedValue
          }
          set {
            _theme.wrappedValue = newValue
          }
        }

        @GraphIgnored private let _theme: StateGraph.Stored<String> = .init(name: "theme", wrappedValue: "light", backed: .userDefaults(key: "theme"))

        @GraphIgnored var $theme: StateGraph.Stored<String> {
          _theme
        }
      }
      """
    }
  }

  @Test func computedKeepsItsNodeInALetSlot() {
    assertMacro {
      """
      final class Cart: Sendable {
        @GraphComputed public var total: Int
      }
      """
    } expansion: {
      """
      final class Cart: Sendable {
        public var total: Int {
          get {
            $total.wrappedValue
          }
        }

        @GraphIgnored private let _total = StateGraph._GraphComputedSlot<Int>()

        @GraphIgnored public private(set) var $total: StateGraph.Computed<Int> {
          get {
            guard let node = _total.node else {
              Swift.preconditionFailure("@GraphComputed 'total' was read before it was given a computation; assign 'self.$total = .init { _ in ... }' in init")
            }
            return node
          }
          set {
            _total.node = newValue
          }
        }
      }
      """
    }
  }

  @Test func anUncheckedSendableClassKeepsTheMutableStorage() {
    assertMacro {
      """
      final class Cart: @unchecked Sendable {
        @GraphStored var count: Int = 0
      }
      """
    } expansion: {
      """
      final class Cart: @unchecked Sendable {
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
}
