/// Where a ``Stored`` node keeps its value.
///
/// ```swift
/// final class SettingsViewModel {
///   @GraphStored(backed: .userDefaults(key: "theme"))
///   var theme: String = "light"
///
///   @GraphStored(backed: .userDefaults(suite: "com.myapp.settings", key: "apiUrl"))
///   var apiUrl: String = "https://api.example.com"
/// }
///
/// let volume = Stored(wrappedValue: 0.5, backed: .userDefaults(key: "volume"))
/// ```
///
/// A persisted property starts with what its key holds, or with its declared value when
/// the key holds nothing. Every write is saved at once. The property follows its key:
/// other nodes backed by the same key see a write immediately, and writes made through
/// `UserDefaults` directly reach the nodes shortly after (see ``UserDefaultsBacking``).
/// Values are stored as property lists (``PropertyListConvertible`` types), as their raw
/// value (`RawRepresentable` enums), or as JSON data (other `Codable` types), in the same
/// form as ``GraphUserDefault`` stores them; <doc:PersistingValues> has the table.
///
/// `userDefaults(key:)` is a static function rather than a second case, because Swift
/// cannot yet tell cases that share a base name apart in a `switch`: both spellings work,
/// and `case .userDefaults(let suite, let key)` matches both (`suite` is nil for the first).
public enum GraphStorageBacking: Sendable {
  /// In memory only: the default.
  case memory
  /// A key of `UserDefaults(suiteName: suite)`, or of `UserDefaults.standard` when `suite`
  /// is nil.
  case userDefaults(suite: String?, key: String)
  /// A place of your own: a file, a keychain item. See ``StorageBacking``.
  case custom(any StorageBacking)

  /// A key of `UserDefaults.standard`.
  public static func userDefaults(key: String) -> GraphStorageBacking {
    .userDefaults(suite: nil, key: key)
  }

  /// The backing that implements this case; nil for memory.
  var place: (any StorageBacking)? {
    switch self {
    case .memory: nil
    case .userDefaults(let suite, let key): UserDefaultsBacking(suite: suite, key: key)
    case .custom(let backing): backing
    }
  }
}

/// The UserDefaults backings, spelled as a type of their own:
/// `@GraphStored(backed: UserDefaultsMarker.userDefaults(key: "userName"))` is
/// `@GraphStored(backed: .userDefaults(key: "userName"))`.
///
/// ```swift
/// final class AppSettings {
///   @GraphStored(backed: UserDefaultsMarker.userDefaults(key: "userName"))
///   var userName: String = ""
/// }
/// ```
public enum UserDefaultsMarker {
  /// A key of `UserDefaults.standard`.
  public static func userDefaults(key: String) -> GraphStorageBacking {
    .userDefaults(key: key)
  }

  /// A key of `UserDefaults(suiteName: suite)`.
  public static func userDefaults(suite: String, key: String) -> GraphStorageBacking {
    .userDefaults(suite: suite, key: key)
  }
}
