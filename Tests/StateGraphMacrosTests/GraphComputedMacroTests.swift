import MacroTesting
import Testing

@Suite(.macros(graphMacros, indentationWidth: .spaces(2)))
struct GraphComputedMacroTests {
  @Test func readOnlyPropertyOverAnOptionalBacking() {
    assertMacro {
      """
      final class CounterViewModel {
        @GraphComputed
        var isEven: Bool
      }
      """
    } expansion: {
      """
      final class CounterViewModel {
        var isEven: Bool {
          get {
            $isEven.wrappedValue
          }
        }

        @GraphIgnored private var _isEven: StateGraph.Computed<Bool>? = nil

        @GraphIgnored private(set) var $isEven: StateGraph.Computed<Bool> {
          get {
            guard let node = _isEven else {
              Swift.preconditionFailure("@GraphComputed 'isEven' was read before it was given a computation; assign 'self.$isEven = .init { _ in ... }' in init")
            }
            return node
          }
          set {
            _isEven = newValue
          }
        }
      }
      """
    }
  }

  @Test func accessAndOptionalValues() {
    assertMacro {
      """
      public final class Post {
        @GraphComputed public var author: User?
        @GraphComputed private var commentCount: Int
      }
      """
    } expansion: {
      """
      public final class Post {
        public var author: User? {
          get {
            $author.wrappedValue
          }
        }

        @GraphIgnored private var _author: StateGraph.Computed<User?>? = nil

        @GraphIgnored public private(set) var $author: StateGraph.Computed<User?> {
          get {
            guard let node = _author else {
              Swift.preconditionFailure("@GraphComputed 'author' was read before it was given a computation; assign 'self.$author = .init { _ in ... }' in init")
            }
            return node
          }
          set {
            _author = newValue
          }
        }
        private var commentCount: Int {
          get {
            $commentCount.wrappedValue
          }
        }

        @GraphIgnored private var _commentCount: StateGraph.Computed<Int>? = nil

        @GraphIgnored private var $commentCount: StateGraph.Computed<Int> {
          get {
            guard let node = _commentCount else {
              Swift.preconditionFailure("@GraphComputed 'commentCount' was read before it was given a computation; assign 'self.$commentCount = .init { _ in ... }' in init")
            }
            return node
          }
          set {
            _commentCount = newValue
          }
        }
      }
      """
    }
  }

  @Test func structAndGeneric() {
    assertMacro {
      """
      struct Pair<Value> {
        @GraphComputed var both: [Value]
      }
      """
    } expansion: {
      """
      struct Pair<Value> {
        var both: [Value] {
          get {
            $both.wrappedValue
          }
        }

        @GraphIgnored private var _both: StateGraph.Computed<[Value]>? = nil

        @GraphIgnored private(set) var $both: StateGraph.Computed<[Value]> {
          get {
            guard let node = _both else {
              Swift.preconditionFailure("@GraphComputed 'both' was read before it was given a computation; assign 'self.$both = .init { _ in ... }' in init")
            }
            return node
          }
          set {
            _both = newValue
          }
        }
      }
      """
    }
  }
}
