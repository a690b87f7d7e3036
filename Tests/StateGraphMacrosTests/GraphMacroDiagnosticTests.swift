import MacroTesting
import Testing

/// Every misuse the macros reject, with the message and, where there is one, the fix-it.
///
/// Where a fix-it applies, MacroTesting expands the fixed source without a lexical context,
/// which is what the compiler gives a global: those `expansion:` blocks show the global
/// form. The compiler gives a member its type as context (see GraphStoredMacroTests).
@Suite(.macros(graphMacros, indentationWidth: .spaces(2)))
struct GraphMacroDiagnosticTests {
  @Test func missingTypeAnnotation() {
    assertMacro {
      """
      final class Model {
        @GraphStored var count = 0
        @GraphComputed var total
      }
      """
    } diagnostics: {
      """
      final class Model {
        @GraphStored var count = 0
                         ┬────
                         ╰─ 🛑 @GraphStored needs an explicit type to name its node; write 'var count: <Type>', e.g. 'var count: Int = 0'
        @GraphComputed var total
                           ┬────
                           ╰─ 🛑 @GraphComputed needs an explicit type to name its node; write 'var total: <Type>'
      }
      """
    }
  }

  @Test func letInsteadOfVar() {
    assertMacro {
      """
      final class Model {
        @GraphStored let count: Int = 0
      }
      """
    } diagnostics: {
      """
      final class Model {
        @GraphStored let count: Int = 0
                     ┬──
                     ╰─ 🛑 @GraphStored requires 'var' because the macro turns the property into accessors; replace 'let' with 'var'
                        ✏️ Replace 'let' with 'var'
      }
      """
    } fixes: {
      """
      final class Model {
        @GraphStored var count: Int = 0
      }
      """
    } expansion: {
      """
      final class Model {
        var count: Int {
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
      }
      """
    }
  }

  @Test func existingAccessors() {
    assertMacro {
      """
      final class Model {
        @GraphStored var count: Int {
          get { 0 }
          set {}
        }
        @GraphComputed var total: Int { 0 }
      }
      """
    } diagnostics: {
      """
      final class Model {
        @GraphStored var count: Int {
                                    ╰─ 🛑 @GraphStored generates the getter and setter of 'count'; remove the accessor block, and derive values with @GraphComputed instead
          get { 0 }
          set {}
        }
        @GraphComputed var total: Int { 0 }
                                      ┬────
                                      ╰─ 🛑 @GraphComputed generates the getter of 'total'; remove the accessor block, and assign 'self.$total = .init { _ in ... }' in init
      }
      """
    }
  }

  @Test func observersOnAComputedProperty() {
    assertMacro {
      """
      final class Model {
        @GraphComputed var total: Int {
          didSet { print(total) }
        }
      }
      """
    } diagnostics: {
      """
      final class Model {
        @GraphComputed var total: Int {
                                      ╰─ 🛑 @GraphComputed does not support 'willSet' or 'didSet' on 'total'; remove them and observe the node instead, e.g. 'self.$total.onChange { newValue in ... }' inside withGraphTracking
          didSet { print(total) }
        }
      }
      """
    }
  }

  @Test func weakAndUnowned() {
    assertMacro {
      """
      final class Model {
        @GraphStored weak var delegate: Delegate?
        @GraphStored unowned var owner: Owner
      }
      """
    } diagnostics: {
      """
      final class Model {
        @GraphStored weak var delegate: Delegate?
                     ┬───
                     ╰─ 🛑 @GraphStored keeps a strong reference in its node, so 'weak' cannot apply to 'delegate'; remove 'weak', or store a small struct whose property is 'weak'
                        ✏️ Remove 'weak'
        @GraphStored unowned var owner: Owner
                     ┬──────
                     ╰─ 🛑 @GraphStored keeps a strong reference in its node, so 'unowned' cannot apply to 'owner'; remove 'unowned', or store a small struct whose property is 'unowned'
                        ✏️ Remove 'unowned'
      }
      """
    } fixes: {
      """
      final class Model {
        @GraphStored var delegate: Delegate?
        @GraphStored var owner: Owner
      }
      """
    }
  }

  @Test func lazyProperty() {
    assertMacro {
      """
      final class Model {
        @GraphStored lazy var count: Int = 0
      }
      """
    } diagnostics: {
      """
      final class Model {
        @GraphStored lazy var count: Int = 0
                     ┬───
                     ╰─ 🛑 @GraphStored cannot be 'lazy'; remove 'lazy' from 'count' (a @GraphComputed node is already computed lazily)
                        ✏️ Remove 'lazy'
      }
      """
    } fixes: {
      """
      final class Model {
        @GraphStored var count: Int = 0
      }
      """
    } expansion: {
      """
      final class Model {
        var count: Int {
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
      }
      """
    }
  }

  @Test func computedWithInitialValue() {
    assertMacro {
      """
      final class Model {
        @GraphComputed var total: Double = 0
      }
      """
    } diagnostics: {
      """
      final class Model {
        @GraphComputed var total: Double = 0
                                         ┬──
                                         ╰─ 🛑 @GraphComputed properties take no initial value; remove it and assign 'self.$total = .init { _ in ... }' in init (or '.init(wrappedValue:) { _ in ... }')
                                            ✏️ Remove the initial value
      }
      """
    } fixes: {
      """
      final class Model {
        @GraphComputed var total: Double
      }
      """
    }
  }

  @Test func computedWithSetterAccess() {
    assertMacro {
      """
      final class Model {
        @GraphComputed public private(set) var total: Double
      }
      """
    } diagnostics: {
      """
      final class Model {
        @GraphComputed public private(set) var total: Double
                              ┬───────────
                              ╰─ 🛑 @GraphComputed property 'total' is read-only, so a setter access level has nothing to restrict; remove it
                                 ✏️ Remove 'private(set)'
      }
      """
    } fixes: {
      """
      final class Model {
        @GraphComputed public var total: Double
      }
      """
    }
  }

  @Test func staticComputedAndStaticStoredWithoutValue() {
    assertMacro {
      """
      final class Model {
        @GraphComputed static var total: Int
        @GraphStored static var shared: Int
      }
      """
    } diagnostics: {
      """
      final class Model {
        @GraphComputed static var total: Int
                       ┬─────
                       ╰─ 🛑 @GraphComputed cannot be used on a 'class' property or a 'static' one; declare a node instead, e.g. 'static let shared = Computed { _ in ... }'
        @GraphStored static var shared: Int
                                ┬─────
                                ╰─ 🛑 a static or global @GraphStored property is created where it is declared, so it needs an initial value; write 'var shared: <Type> = <value>' (optionals may omit it)
      }
      """
    }
  }

  @Test func storedInstancePropertyOfAnEnum() {
    assertMacro {
      """
      enum Settings {
        @GraphStored var count: Int = 0
      }
      """
    } diagnostics: {
      """
      enum Settings {
        @GraphStored var count: Int = 0
        ┬───────────
        ╰─ 🛑 @GraphStored must be an instance property of a class, struct or actor, a 'static' property, or a global variable (not a local or an instance property of an enum or extension); elsewhere create the node directly, e.g. 'let count = Stored(wrappedValue: 0)'
      }
      """
    }
  }

  @Test func notAVariable() {
    assertMacro {
      """
      final class Model {
        @GraphStored func count() -> Int { 0 }
      }
      """
    } diagnostics: {
      """
      final class Model {
        @GraphStored func count() -> Int { 0 }
        ┬───────────
        ╰─ 🛑 @GraphStored can only be attached to a 'var' property of a class or struct
      }
      """
    }
  }

  @Test func outsideAClassOrStructBody() {
    assertMacro {
      """
      extension Model {
        @GraphStored var extra: Int = 0
      }
      enum Mode {
        @GraphComputed var label: String
      }
      func f() {
        @GraphComputed var local: Int
      }
      """
    } diagnostics: {
      """
      extension Model {
        @GraphStored var extra: Int = 0
        ┬───────────
        ╰─ 🛑 @GraphStored must be an instance property of a class, struct or actor, a 'static' property, or a global variable (not a local or an instance property of an enum or extension); elsewhere create the node directly, e.g. 'let count = Stored(wrappedValue: 0)'
      }
      enum Mode {
        @GraphComputed var label: String
        ┬─────────────
        ╰─ 🛑 @GraphComputed must be declared in the body of a class or struct, which holds its node (extensions, enums, globals and locals cannot); elsewhere create the node directly, e.g. 'let total = Computed { _ in ... }'
      }
      func f() {
        @GraphComputed var local: Int
        ┬─────────────
        ╰─ 🛑 @GraphComputed must be declared in the body of a class or struct, which holds its node (extensions, enums, globals and locals cannot); elsewhere create the node directly, e.g. 'let total = Computed { _ in ... }'
      }
      """
    }
  }

  @Test func severalBindingsOrATuple() {
    assertMacro {
      """
      final class Model {
        @GraphStored var width: Int = 0, height: Int = 0
        @GraphStored var (x, y): (Int, Int) = (0, 0)
      }
      """
    } diagnostics: {
      """
      final class Model {
        @GraphStored var width: Int = 0, height: Int = 0
        ┬───────────────────────────────────────────────
        ├─ 🛑 accessor macro can only be applied to a single variable
        ╰─ 🛑 peer macro can only be applied to a single variable
        @GraphStored var (x, y): (Int, Int) = (0, 0)
                         ┬─────
                         ╰─ 🛑 @GraphStored needs a simple property name such as 'var count: Int'; tuple patterns are not supported
      }
      """
    }
  }

  @Test func insideAnObservableClass() {
    assertMacro {
      """
      @Observable
      final class ShoppingCartModel: GraphObject {
        @GraphStored var items: [CartItem] = []
        @GraphComputed var total: Double
      }
      """
    } diagnostics: {
      """
      @Observable
      final class ShoppingCartModel: GraphObject {
        @GraphStored var items: [CartItem] = []
        ┬───────────
        ╰─ 🛑 @GraphStored 'items' cannot be tracked by @Observable as well: both macros generate its accessors. Remove @Observable and conform the type to GraphObject (graph properties are observable through their nodes), or mark the property '@GraphStored @ObservationIgnored' (in that order)
           ✏️ Add '@ObservationIgnored'
        @GraphComputed var total: Double
        ┬─────────────
        ╰─ 🛑 @GraphComputed 'total' cannot be tracked by @Observable as well: both macros generate its accessors. Remove @Observable and conform the type to GraphObject (graph properties are observable through their nodes), or mark the property '@GraphComputed @ObservationIgnored' (in that order)
           ✏️ Add '@ObservationIgnored'
      }
      """
    } fixes: {
      """
      @Observable
      final class ShoppingCartModel: GraphObject {
        @GraphStored @ObservationIgnored var items: [CartItem] = []
        @GraphComputed @ObservationIgnored var total: Double
      }
      """
    }
  }

  /// What the compiler hands us when @ObservationTracked copies the property into its
  /// storage: the attributes come along, but there is no enclosing type.
  @Test func storageCopiedByObservable() {
    assertMacro {
      """
      @GraphStored @ObservationIgnored private var _items: [CartItem] = []
      """
    } diagnostics: {
      """
      @GraphStored @ObservationIgnored private var _items: [CartItem] = []
      ┬───────────
      ╰─ 🛑 @Observable copied @GraphStored onto the storage it generates for the property; fix the property itself: write '@GraphStored @ObservationIgnored', or remove @Observable
      """
    }
  }

  @Test func observationIgnoredMustFollow() {
    assertMacro {
      """
      @Observable
      final class ShoppingCartModel: GraphObject {
        @ObservationIgnored @GraphStored var items: [CartItem] = []
      }
      """
    } diagnostics: {
      """
      @Observable
      final class ShoppingCartModel: GraphObject {
        @ObservationIgnored @GraphStored var items: [CartItem] = []
        ┬──────────────────
        ╰─ 🛑 write @ObservationIgnored after @GraphStored: the compiler checks the accessors @GraphStored generates against the first accessor macro on the property
           ✏️ Move '@ObservationIgnored' after '@GraphStored'
      }
      """
    } fixes: {
      """
      @Observable
      final class ShoppingCartModel: GraphObject {
        @GraphStored @ObservationIgnored var items: [CartItem] = []
      }
      """
    }
  }

  @Test func observationIgnoredAfterTheMacroIsAccepted() {
    assertMacro {
      """
      @Observable
      final class ShoppingCartModel: GraphObject {
        @GraphStored @ObservationIgnored var items: [CartItem] = []
      }
      """
    } expansion: {
      """
      @Observable
      final class ShoppingCartModel: GraphObject {
        @ObservationIgnored var items: [CartItem] {
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

        @GraphIgnored private var _items: StateGraph.Stored<[CartItem]>

        @GraphIgnored var $items: StateGraph.Stored<[CartItem]> {
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
