import Foundation

/// A key of `UserDefaults`: the backing behind ``GraphStorageBacking/userDefaults(key:)`` and
/// ``GraphStorageBacking/userDefaults(suite:key:)``.
///
/// ```swift
/// let theme = Stored(wrappedValue: "light", backed: .custom(UserDefaultsBacking(key: "theme")))
/// // the same node as Stored(wrappedValue: "light", backed: .userDefaults(key: "theme"))
/// ```
///
/// Writes made through `UserDefaults` by other code in the process reach the nodes on the
/// key from a background queue: on Apple platforms when `UserDefaults.didChangeNotification`
/// is posted (UserDefaults posts it for every change), on Linux, whose Foundation posts
/// nothing for `set(_:forKey:)`, by polling the watched keys every quarter of a second.
///
/// On Linux every save is also written to disk at once (`synchronize()`), and the polling
/// picks up what other processes saved, so nodes in two processes follow each other. On
/// Apple platforms another process's writes are read when a node on the key is created.
public struct UserDefaultsBacking: StorageBacking {
  /// The suite name; nil for `UserDefaults.standard`.
  public let suite: String?
  /// The key within the suite.
  public let key: String

  /// A key of `UserDefaults(suiteName: suite)`, or of `UserDefaults.standard` when `suite` is nil.
  public init(suite: String? = nil, key: String) {
    self.suite = suite
    self.key = key
  }

  public var description: String {
    if let suite { return "UserDefaults(suite: \"\(suite)\") key \"\(key)\"" }
    return "UserDefaults key \"\(key)\""
  }

  public func load() throws -> PropertyListValue? {
    let defaults = defaults
    guard let object = Self.withPreferences({ defaults.object(forKey: key) }) else { return nil }
    guard let value = PropertyListValue(propertyListObject: object) else {
      throw NotAPropertyList(found: String(describing: type(of: object)))
    }
    return value
  }

  public func save(_ value: PropertyListValue?) throws {
    let defaults = defaults
    Self.withPreferences {
      if let value {
        defaults.set(value.propertyListObject, forKey: key)
      } else {
        defaults.removeObject(forKey: key)
      }
      #if !canImport(Darwin)
        // swift-corelibs-foundation keeps changes in memory until synchronize(): write
        // them through, so that they survive a crash and other processes read them.
        defaults.synchronize()
      #endif
    }
  }

  public func watch(_ onChange: @escaping @Sendable () -> Void) -> StorageWatch {
    #if !canImport(Darwin)
      // Another process may have saved since this one loaded the suite from disk.
      let defaults = defaults
      Self.withPreferences { _ = defaults.synchronize() }
    #endif
    return UserDefaultsWatcher.shared.add(suite: suite, onChange)
  }

  /// Runs `body`, which calls into `UserDefaults`, alone among this library's calls.
  /// swift-corelibs-foundation's preferences can lose a value that one thread saves to a
  /// suite while another thread synchronizes that suite (the save reads back nil; this
  /// package's storage tests caught it about one run in twelve), so on Linux every save,
  /// load and synchronize made here takes one lock. A leaf: `body` calls nothing of ours.
  static func withPreferences<R>(_ body: () -> R) -> R {
    #if canImport(Darwin)
      return body()
    #else
      return preferences.withLock { _ in body() }
    #endif
  }

  #if !canImport(Darwin)
    private static let preferences = Locked(())
  #endif

  private var defaults: UserDefaults { Self.defaults(suite) }

  /// One `UserDefaults` object per suite, made once: `UserDefaults(suiteName:)` builds a
  /// new object on every call.
  static func defaults(_ suite: String?) -> UserDefaults {
    guard let suite else { return .standard }
    return suites.withLock { suites in
      if let cached = suites[suite] { return cached.defaults }
      let defaults = UserDefaults(suiteName: suite) ?? .standard
      suites[suite] = UncheckedDefaults(defaults: defaults)
      return defaults
    }
  }

  private static let suites = Locked<[String: UncheckedDefaults]>([:])

  /// UserDefaults is thread-safe; Linux's Foundation does not say so in its type.
  private struct UncheckedDefaults: @unchecked Sendable {
    let defaults: UserDefaults
  }

  struct NotAPropertyList: Error, CustomStringConvertible {
    let found: String
    var description: String { "it holds a \(found), which is not a property list" }
  }
}
