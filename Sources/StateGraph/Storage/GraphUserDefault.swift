import Foundation

/// A property whose value lives in a `UserDefaults` key and in a ``Stored`` node, so
/// computations and observers that read it see every change of the key.
///
/// ```swift
/// final class Settings {
///   @GraphUserDefault("theme") var theme: String = "light"
///   @GraphUserDefault("fontSize", suiteName: "group.com.example") var fontSize: Double = 14
///   @GraphUserDefault("lastOpened", store: testDefaults) var lastOpened: Date? = nil
/// }
///
/// let settings = Settings()
/// settings.theme = "dark"         // saved to the key at once
/// let label = Computed { _ in "theme: \(settings.theme)" }  // follows the key
/// ```
///
/// This is swift-state-graph's spelling of ``GraphStored(backed:)`` with
/// `.userDefaults(key:)`, and a thin layer over the same persisted node: the value is
/// stored in the same form (see <doc:PersistingValues>), and writes, rollbacks and
/// changes found in the key are ordered in one place for both. A property of the
/// standard defaults or of a suite opened by name shares its value with every other
/// property and node on that key, of either spelling.
///
/// The property starts with what the key holds, or with the declared value when it holds
/// nothing or something the type cannot read (a ``StorageDiagnostic`` reports that, and
/// the key keeps what it holds). A write saves the value and, before the setter returns,
/// every property, node and computation on the key reads it. Inside
/// ``withGraphBatch(_:)`` a write is saved at once and undone, in the key too, if the
/// batch throws; a rolled-back write is never found in the key afterwards. A change made
/// to the key elsewhere reaches the node when `UserDefaults.didChangeNotification` is
/// posted for the store (synchronously, on the posting thread) and, on Linux, whose
/// Foundation posts nothing for `set(_:forKey:)`, within a quarter of a second through
/// polling.
///
/// `$theme` is the wrapper itself, a reference: keep it to go on reading and writing the
/// key after the enclosing object is gone. ``onDidSet(_:)`` runs after each change the
/// node takes, from this process's writes and from outside.
///
/// Thread safety: any thread may read and write. Racing writers end with every property
/// on the key, and the key, on the value saved last. A writer never waits for another
/// writer's observers, of this key or another: writers are ordered by the key's change
/// numbers, not by a lock held across publication.
@propertyWrapper
public final class GraphUserDefault<Value: UserDefaultsStorable>: Sendable {
  /// The persisted node that holds the value; its reads are tracked like any node's.
  private let node: Stored<Value>

  /// Creates a property kept in `key` of `store`.
  /// - Parameters:
  ///   - wrappedValue: the declared value, read while the key holds nothing usable.
  ///   - key: the `UserDefaults` key.
  ///   - store: the defaults to keep it in; `UserDefaults.standard` unless given.
  public init(wrappedValue: Value, _ key: String, store: UserDefaults = .standard) {
    node = Self.node(key, wrappedValue, in: UserDefaultsBacking.place(of: key, in: store))
  }

  /// Creates a property kept in `key` of the suite named `suiteName`.
  ///
  /// Stops the program when the suite cannot be opened (`UserDefaults(suiteName:)` returns
  /// nil, for example for the app's own bundle identifier), rather than quietly using the
  /// standard defaults.
  /// - Parameters:
  ///   - wrappedValue: the declared value, read while the key holds nothing usable.
  ///   - key: the `UserDefaults` key.
  ///   - suiteName: the suite, as for `UserDefaults(suiteName:)`.
  public init(wrappedValue: Value, _ key: String, suiteName: String) {
    guard UserDefaults(suiteName: suiteName) != nil else {
      preconditionFailure("GraphUserDefault: cannot open the UserDefaults suite '\(suiteName)'")
    }
    node = Self.node(key, wrappedValue, in: UserDefaultsBacking(suite: suiteName, key: key))
  }

  private static func node(
    _ key: String, _ declared: Value, in place: any StorageBacking
  ) -> Stored<Value> {
    Stored(
      persisting: key, declared, in: place,
      codec: .forUserDefaults(key: key, declared: declared), #fileID, #line)
  }

  /// The value. Reading it inside a computation records a dependency on the key's node;
  /// setting it is a write of that node: saved, then read by every reader of the key
  /// before the setter returns.
  public var wrappedValue: Value {
    get { node.wrappedValue }
    set { node.wrappedValue = newValue }  // the node's write path: the one that saves
  }

  /// The wrapper itself: `$name` in the enclosing type. Holding it keeps the key observed.
  public var projectedValue: GraphUserDefault<Value> { self }

  /// Sets the closure that runs after the node takes a new value, with the old and the new
  /// one: after this process's writes and after changes found in the key. A write that
  /// leaves the value as it was does not call it. One closure per property; a second call
  /// replaces the first. It runs on the writing (or notifying) thread, with no lock held.
  public func onDidSet(_ handler: @escaping (_ oldValue: Value, _ newValue: Value) -> Void) {
    node.persistence?.onChange(handler)
  }
}
