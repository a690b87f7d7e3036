import MacroTesting
import Testing

/// `willSet` / `didSet` on `@GraphStored` move into the generated setter, around the write.
///
/// swift-syntax 600's test expander leaves out the macro's init accessor when the property
/// has observers (603's keeps it; the compiler always does, whatever the plugin was built
/// with), so the instance-property snapshots are checked on 603 only. The static-property
/// ones have no init accessor and run on every version in the range.
@Suite(.macros(graphMacros, indentationWidth: .spaces(2)))
struct PropertyObserverExpansionTests {
  @Test func staticObserversRunAroundTheWrite() {
    assertMacro {
      """
      enum Settings {
        @GraphStored static var volume: Double = 0.5 {
          willSet { print("will", volume, newValue) }
          didSet(previous) { print("did", previous, volume) }
        }
      }
      """
    } expansion: {
      """
      enum Settings {
        static var volume: Double {
          willSet { print("will", volume, newValue) }
          didSet(previous) { print("did", previous, volume) }
          get {
            _volume.wrappedValue
          }

          set(__graphStoredNewValue) {
            func __willSet(_ newValue: Double) {
              print("will", volume, newValue)
            }
            __willSet(__graphStoredNewValue)
            func __didSet(_ previous: Double) {
              print("did", previous, volume)
            }
            let __graphStoredOldValue = _volume._untrackedValue
            _volume.wrappedValue = __graphStoredNewValue
            __didSet(__graphStoredOldValue)
          }
        }

        @GraphIgnored private static let _volume: StateGraph.Stored<Double> = .init(name: "volume", wrappedValue: 0.5)

        @GraphIgnored static var $volume: StateGraph.Stored<Double> {
          _volume
        }
      }
      """
    }
  }

  @Test func staticObserverThatIgnoresTheOldValue() {
    assertMacro {
      """
      final class Model {
        @GraphStored static var count: Int = 0 {
          didSet { print("changed") }
        }
      }
      """
    } expansion: {
      """
      final class Model {
        static var count: Int {
          didSet { print("changed") }
          get {
            _count.wrappedValue
          }

          set(__graphStoredNewValue) {
            func __didSet() {
              print("changed")
            }
            _count.wrappedValue = __graphStoredNewValue
            __didSet()
          }
        }

        @GraphIgnored private static let _count: StateGraph.Stored<Int> = .init(name: "count", wrappedValue: 0)

        @GraphIgnored static var $count: StateGraph.Stored<Int> {
          _count
        }
      }
      """
    }
  }

  #if canImport(SwiftSyntax603)
  @Test func observersRunAroundTheWrite() {
    assertMacro {
      """
      final class Model {
        @GraphStored var count: Int = 0 {
          willSet { log.append("will \\(count) -> \\(newValue)") }
          didSet { log.append("did \\(oldValue) -> \\(count)") }
        }
      }
      """
    } expansion: {
      #"""
      final class Model {
        var count: Int {
          willSet { log.append("will \(count) -> \(newValue)") }
          didSet { log.append("did \(oldValue) -> \(count)") }
          @storageRestrictions(initializes: _count)
          init(initialValue) {
            _count = .init(name: "count", wrappedValue: initialValue)
          }

          get {
            _count.wrappedValue
          }

          set(__graphStoredNewValue) {
            func __willSet(_ newValue: Int) {
              log.append("will \(count) -> \(newValue)")
            }
            __willSet(__graphStoredNewValue)
            func __didSet(_ oldValue: Int) {
              log.append("did \(oldValue) -> \(count)")
            }
            let __graphStoredOldValue = _count._untrackedValue
            _count.wrappedValue = __graphStoredNewValue
            __didSet(__graphStoredOldValue)
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
      """#
    }
  }

  @Test func namedParametersAndUnusedOnes() {
    assertMacro {
      """
      struct Model {
        @GraphStored var count: Int {
          willSet(next) { print(next) }
          didSet { print("changed") }
        }
      }
      """
    } expansion: {
      """
      struct Model {
        var count: Int {
          willSet(next) { print(next) }
          didSet { print("changed") }
          @storageRestrictions(initializes: _count)
          init(initialValue) {
            _count = .init(name: "count", wrappedValue: initialValue)
          }

          get {
            _count.wrappedValue
          }

          nonmutating set(__graphStoredNewValue) {
            func __willSet(_ next: Int) {
              print(next)
            }
            __willSet(__graphStoredNewValue)
            func __didSet() {
              print("changed")
            }
            _count.wrappedValue = __graphStoredNewValue
            __didSet()
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

  @Test func inASendableClass() {
    assertMacro {
      """
      final class Model: Sendable {
        @GraphStored var count: Int = 0 {
          didSet(previous) { print(previous) }
        }
      }
      """
    } expansion: {
      """
      final class Model: Sendable {
        var count: Int {
          didSet(previous) { print(previous) }
          @storageRestrictions(accesses: _count)
          init(initialValue) {
          }

          get {
            _count.wrappedValue
          }

          set(__graphStoredNewValue) {
            func __didSet(_ previous: Int) {
              print(previous)
            }
            let __graphStoredOldValue = _count._untrackedValue
            _count.wrappedValue = __graphStoredNewValue
            __didSet(__graphStoredOldValue)
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
  #endif
}
