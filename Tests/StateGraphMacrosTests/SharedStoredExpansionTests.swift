import MacroTesting
import Testing

/// `@GraphStored` on `static` properties and globals: one node, made where it is declared.
@Suite(.macros(graphMacros, indentationWidth: .spaces(2)))
struct SharedStoredExpansionTests {
  @Test func staticPropertyOfAClassAndOfAnEnum() {
    assertMacro {
      """
      final class Model {
        @GraphStored static var shared: Int = 0
      }
      enum Settings {
        @GraphStored public private(set) static var theme: String? {
          didSet { print(theme ?? "none") }
        }
      }
      """
    } expansion: {
      """
      final class Model {
        static var shared: Int {
          get {
            _shared.wrappedValue
          }
          set {
            _shared.wrappedValue = newValue
          }
        }

        @GraphIgnored private static let _shared: StateGraph.Stored<Int> = .init(name: "shared", wrappedValue: 0)

        @GraphIgnored static var $shared: StateGraph.Stored<Int> {
          _shared
        }
      }
      enum Settings {
        public private(set) static var theme: String? {
          didSet { print(theme ?? "none") }
          get {
            _theme.wrappedValue
          }

          set(__graphStoredNewValue) {
            func __didSet() {
              print(theme ?? "none")
            }
            _theme.wrappedValue = __graphStoredNewValue
            __didSet()
          }
        }

        @GraphIgnored private static let _theme: StateGraph.Stored<String?> = .init(name: "theme", wrappedValue: nil)

        @GraphIgnored public static var $theme: StateGraph.Stored<String?> {
          _theme
        }
      }
      """
    }
  }

  @Test func globalVariable() {
    assertMacro {
      """
      @GraphStored(backed: .userDefaults(key: "launches")) var launches: Int = 0
      """
    } expansion: {
      """
      var launches: Int {
        get {
          _launches.wrappedValue
        }
        set {
          _launches.wrappedValue = newValue
        }
      }

      @GraphIgnored private let _launches: StateGraph.Stored<Int> = .init(name: "launches", wrappedValue: 0, backed: .userDefaults(key: "launches"))

      @GraphIgnored var $launches: StateGraph.Stored<Int> {
        _launches
      }
      """
    }
  }
}
