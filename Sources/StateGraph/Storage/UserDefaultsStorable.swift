import Foundation

/// A value that ``GraphUserDefault`` can keep in `UserDefaults`.
///
/// `Bool`, `Int`, `Float`, `Double`, `String`, `Data`, `Date`, `URL` and optionals of them
/// conform already. A `Codable` type conforms by declaring it; it is saved as JSON data:
///
/// ```swift
/// struct Layout: Codable, Equatable, UserDefaultsStorable {
///   var columns: Int
///   var showsSidebar: Bool
/// }
///
/// final class Settings {
///   @GraphUserDefault("layout") var layout = Layout(columns: 2, showsSidebar: true)
/// }
/// ```
///
/// Another type implements the two requirements, which read and write one key. Reading
/// must be deterministic and quick: it runs on every write (to learn what the key holds
/// afterwards) and whenever the key may have changed.
///
/// The protocol has the shape of swift-state-graph's, so conformances written for it
/// compile here. It is separate from ``PropertyListConvertible``, which the
/// `@GraphStored(backed:)` spelling uses.
public protocol UserDefaultsStorable: Equatable, Sendable {
  /// Reads the value under `key`; returns `defaultValue` when the key holds nothing or
  /// something this type cannot read.
  static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: Self) -> Self

  /// Writes the value under `key`; an optional set to `nil` removes the key.
  func _setValue(to userDefaults: UserDefaults, forKey key: String)
}

extension UserDefaultsStorable {
  /// Reads the object under `key` as this type, or `defaultValue`.
  public static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: Self)
    -> Self
  {
    userDefaults.object(forKey: key) as? Self ?? defaultValue
  }
}

extension UserDefaultsStorable where Self: Codable {
  /// Decodes the JSON data under `key`, or returns `defaultValue` when there is none or
  /// it does not decode.
  public static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: Self)
    -> Self
  {
    guard let data = userDefaults.data(forKey: key) else { return defaultValue }
    return (try? JSONDecoder().decode(Self.self, from: data)) ?? defaultValue
  }

  /// Saves the value as JSON data; a value that does not encode removes the key, so the
  /// next read falls back to the declared value rather than to a stale one.
  public func _setValue(to userDefaults: UserDefaults, forKey key: String) {
    guard let data = try? JSONEncoder().encode(self) else {
      userDefaults.removeObject(forKey: key)
      return
    }
    userDefaults.set(data, forKey: key)
  }
}

// The scalar types read through UserDefaults' typed getters, which convert between number
// representations (an `Int` saved by other code reads as a `Double`), but only after the
// presence check: the getters answer 0 or false for a missing key.

extension Bool: UserDefaultsStorable {
  /// Reads a `Bool`, or `defaultValue` when the key holds nothing.
  public static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: Bool) -> Bool {
    userDefaults.object(forKey: key) == nil ? defaultValue : userDefaults.bool(forKey: key)
  }

  /// Writes the value under `key`.
  public func _setValue(to userDefaults: UserDefaults, forKey key: String) {
    userDefaults.set(self, forKey: key)
  }
}

extension Int: UserDefaultsStorable {
  /// Reads an `Int`, or `defaultValue` when the key holds nothing.
  public static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: Int) -> Int {
    userDefaults.object(forKey: key) == nil ? defaultValue : userDefaults.integer(forKey: key)
  }

  /// Writes the value under `key`.
  public func _setValue(to userDefaults: UserDefaults, forKey key: String) {
    userDefaults.set(self, forKey: key)
  }
}

extension Float: UserDefaultsStorable {
  /// Reads a `Float`, or `defaultValue` when the key holds nothing.
  public static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: Float)
    -> Float
  {
    userDefaults.object(forKey: key) == nil ? defaultValue : userDefaults.float(forKey: key)
  }

  /// Writes the value under `key`.
  public func _setValue(to userDefaults: UserDefaults, forKey key: String) {
    userDefaults.set(self, forKey: key)
  }
}

extension Double: UserDefaultsStorable {
  /// Reads a `Double`, or `defaultValue` when the key holds nothing.
  public static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: Double)
    -> Double
  {
    userDefaults.object(forKey: key) == nil ? defaultValue : userDefaults.double(forKey: key)
  }

  /// Writes the value under `key`.
  public func _setValue(to userDefaults: UserDefaults, forKey key: String) {
    userDefaults.set(self, forKey: key)
  }
}

extension String: UserDefaultsStorable {
  /// Reads a `String`, or `defaultValue` when the key holds nothing or something else.
  public static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: String)
    -> String
  {
    userDefaults.string(forKey: key) ?? defaultValue
  }

  /// Writes the value under `key`.
  public func _setValue(to userDefaults: UserDefaults, forKey key: String) {
    userDefaults.set(self, forKey: key)
  }
}

extension Data: UserDefaultsStorable {
  /// Reads `Data`, or `defaultValue` when the key holds nothing or something else.
  public static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: Data) -> Data {
    userDefaults.data(forKey: key) ?? defaultValue
  }

  /// Writes the value under `key`.
  public func _setValue(to userDefaults: UserDefaults, forKey key: String) {
    userDefaults.set(self, forKey: key)
  }
}

extension Date: UserDefaultsStorable {
  /// Reads a `Date`, or `defaultValue` when the key holds nothing or something else.
  public static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: Date) -> Date {
    userDefaults.object(forKey: key) as? Date ?? defaultValue
  }

  /// Writes the value under `key`.
  public func _setValue(to userDefaults: UserDefaults, forKey key: String) {
    userDefaults.set(self, forKey: key)
  }
}

extension URL: UserDefaultsStorable {
  /// Reads a `URL`, or `defaultValue` when the key holds nothing or something else.
  public static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: URL) -> URL {
    userDefaults.url(forKey: key) ?? defaultValue
  }

  /// Writes the value under `key`.
  public func _setValue(to userDefaults: UserDefaults, forKey key: String) {
    userDefaults.set(self, forKey: key)
  }
}

extension Optional: UserDefaultsStorable where Wrapped: UserDefaultsStorable {
  /// Reads the wrapped value; `defaultValue` when the key holds nothing.
  ///
  /// With a `nil` default there is no wrapped default to hand the wrapped type, so the
  /// object under the key is cast as it is: this covers the property-list types (`String`,
  /// `Int`, `Date`, ...), not JSON-encoded `Codable` values.
  public static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: Wrapped?)
    -> Wrapped?
  {
    guard let object = userDefaults.object(forKey: key) else { return defaultValue }
    if let wrappedDefault = defaultValue {
      return Wrapped._getValue(from: userDefaults, forKey: key, defaultValue: wrappedDefault)
    }
    return object as? Wrapped
  }

  /// Writes the wrapped value, or removes the key for `nil`.
  public func _setValue(to userDefaults: UserDefaults, forKey key: String) {
    guard let value = self else {
      userDefaults.removeObject(forKey: key)
      return
    }
    value._setValue(to: userDefaults, forKey: key)
  }
}
