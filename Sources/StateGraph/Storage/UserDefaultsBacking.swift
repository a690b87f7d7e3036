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
/// key when `UserDefaults.didChangeNotification` is posted for the suite's `UserDefaults`
/// object (synchronously, on the posting thread, unless that thread is inside one of this
/// library's saves; then from a background queue), and from a background queue after any
/// other change notification. Linux's Foundation posts nothing for `set(_:forKey:)`, so
/// there the watched keys are also polled every quarter of a second.
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
    try Self.load(key, from: defaults)
  }

  public func save(_ value: PropertyListValue?) throws {
    Self.save(value, key, to: defaults)
  }

  public func watch(_ onChange: @escaping @Sendable () -> Void) -> StorageWatch {
    Self.watch(defaults, onChange)
  }

  /// What `key` of `defaults` holds, as a property list.
  static func load(_ key: String, from defaults: UserDefaults) throws -> PropertyListValue? {
    guard let object = withPreferences({ defaults.object(forKey: key) }) else { return nil }
    guard let value = PropertyListValue(propertyListObject: object) else {
      throw NotAPropertyList(found: String(describing: type(of: object)))
    }
    return value
  }

  /// Replaces what `key` of `defaults` holds; nil removes it.
  static func save(_ value: PropertyListValue?, _ key: String, to defaults: UserDefaults) {
    withPreferences {
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

  /// Follows `defaults`: its change notifications at once, and the shared watcher's passes.
  static func watch(
    _ defaults: UserDefaults, _ onChange: @escaping @Sendable () -> Void
  ) -> StorageWatch {
    #if !canImport(Darwin)
      // Another process may have saved since this one loaded the suite from disk.
      withPreferences { _ = defaults.synchronize() }
    #endif
    let observer = NotificationCenter.default.addObserver(
      forName: UserDefaults.didChangeNotification, object: defaults, queue: nil
    ) { _ in
      // Posted from inside a save of this library (Apple's UserDefaults posts on the
      // saving thread): following it there would run observers inside that save.
      if ThreadState.existing?.isSavingUserDefault == true {
        DispatchQueue.global().async(execute: onChange)
      } else {
        onChange()
      }
    }
    let registration = NotificationRegistration(observer: observer)
    let poll = UserDefaultsWatcher.shared.add(defaults: defaults, onChange)
    return StorageWatch {
      NotificationCenter.default.removeObserver(registration.observer)
      poll.cancel()
    }
  }

  /// A notification observer token; NotificationCenter is thread-safe.
  private struct NotificationRegistration: @unchecked Sendable {
    let observer: any NSObjectProtocol
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
      return preferences.withLock(body)
    #endif
  }

  #if !canImport(Darwin)
    // A pthread mutex: saves and synchronizations hold it for a file write, long enough
    // for the graph's spinning lock to be the wrong tool.
    private static let preferences = NSLock()
  #endif

  private var defaults: UserDefaults { Self.defaults(suite) }

  /// The place of `key` in `store`, as ``GraphUserDefault`` names it: a key of the standard
  /// defaults or of a suite this library opened is the place `Stored(backed:)` uses too,
  /// so the two spellings share one value there; any other `UserDefaults` object is a
  /// place of its own, which follows the others through change notifications and polling.
  static func place(of key: String, in store: UserDefaults) -> any StorageBacking {
    if store === UserDefaults.standard { return UserDefaultsBacking(key: key) }
    let suite = suites.withLock { suites in
      suites.first { $0.value.defaults === store }?.key
    }
    if let suite { return UserDefaultsBacking(suite: suite, key: key) }
    return UserDefaultsObjectBacking(store: store, key: key)
  }

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

/// A key of a `UserDefaults` object that ``GraphUserDefault`` was given, other than the
/// standard one and the suites opened by name (see `UserDefaultsBacking.place(of:in:)`).
/// Objects are told apart by identity: two objects for one suite are two places.
struct UserDefaultsObjectBacking: StorageBacking, @unchecked Sendable {
  // @unchecked: UserDefaults is thread-safe; Linux's Foundation does not say so.
  let store: UserDefaults
  let key: String

  var description: String { "UserDefaults key \"\(key)\"" }

  func load() throws -> PropertyListValue? { try UserDefaultsBacking.load(key, from: store) }

  func save(_ value: PropertyListValue?) throws { UserDefaultsBacking.save(value, key, to: store) }

  func watch(_ onChange: @escaping @Sendable () -> Void) -> StorageWatch {
    UserDefaultsBacking.watch(store, onChange)
  }

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.store === rhs.store && lhs.key == rhs.key }

  func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(store))
    hasher.combine(key)
  }
}
