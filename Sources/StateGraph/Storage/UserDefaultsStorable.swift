import Foundation

/// A value that ``GraphUserDefault`` can keep in `UserDefaults`.
///
/// `Bool`, `Int`, `Float`, `Double`, `String`, `Data`, `Date`, `URL`, optionals of them,
/// and arrays and `String`-keyed dictionaries of storable `Codable` values conform already.
/// Any type that `@GraphStored(backed:)` can persist conforms by declaring it, and is
/// stored exactly as that spelling stores it (see <doc:PersistingValues>): an enum as its
/// raw value, another `Codable` type as JSON data.
///
/// ```swift
/// struct Layout: Codable, Equatable, UserDefaultsStorable {
///   var columns: Int
///   var showsSidebar: Bool
/// }
///
/// enum Theme: String, UserDefaultsStorable { case light, dark }
///
/// final class Settings {
///   @GraphUserDefault("layout") var layout = Layout(columns: 2, showsSidebar: true)
///   @GraphUserDefault("theme") var theme = Theme.light
/// }
/// ```
///
/// The two requirements have swift-state-graph's shape, so conformances written for it
/// compile here. Implement them only for a type the library cannot store otherwise (one
/// that is neither `Codable` nor `RawRepresentable`): they then convert the value to and
/// from the property list that one key holds. They are called with a stand-in for the
/// store that holds that one key, never with the real store: the library saves and loads
/// the key itself, so that saves, rollbacks and outside changes are ordered in one place.
/// Reading must be deterministic and quick.
public protocol UserDefaultsStorable: Equatable, Sendable {
  /// Reads the value under `key`; returns `defaultValue` when the key holds nothing or
  /// something this type cannot read.
  static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: Self) -> Self

  /// Writes the value under `key`; an optional set to `nil` removes the key.
  func _setValue(to userDefaults: UserDefaults, forKey key: String)
}

extension UserDefaultsStorable {
  /// Reads the value under `key` in the library's form for this type (see
  /// <doc:PersistingValues>), or returns `defaultValue` when the key holds nothing or
  /// something this type cannot read.
  public static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: Self)
    -> Self
  {
    guard let codec = StorageCodec<Self>.forValueType,
      let object = userDefaults.object(forKey: key),
      let stored = PropertyListValue(propertyListObject: object),
      let value = try? codec.decode(stored)
    else { return defaultValue }
    return value
  }

  /// Writes the value under `key` in the library's form for this type; a type the library
  /// cannot store leaves the key as it is and reports a ``StorageDiagnostic``.
  public func _setValue(to userDefaults: UserDefaults, forKey key: String) {
    guard let codec = StorageCodec<Self>.forValueType else {
      if let standIn = userDefaults as? UserDefaultsStandIn {
        standIn.cannotStore("\(Self.self) is neither Codable nor RawRepresentable")
      } else {
        StorageDiagnostic.report(
          .unencodable, "UserDefaults key \"\(key)\"", Self.self,
          "neither Codable nor RawRepresentable")
      }
      return
    }
    do {
      if let stored = try codec.encode(self) {
        userDefaults.set(stored.propertyListObject, forKey: key)
      } else {
        userDefaults.removeObject(forKey: key)
      }
    } catch {
      (userDefaults as? UserDefaultsStandIn)?.cannotStore("\(error)")
    }
  }
}

extension Bool: UserDefaultsStorable {}
extension Int: UserDefaultsStorable {}
extension Float: UserDefaultsStorable {}
extension Double: UserDefaultsStorable {}
extension String: UserDefaultsStorable {}
extension Data: UserDefaultsStorable {}
extension Date: UserDefaultsStorable {}
extension URL: UserDefaultsStorable {}
extension Array: UserDefaultsStorable where Element: UserDefaultsStorable & Codable {}
extension Dictionary: UserDefaultsStorable where Key == String, Value: UserDefaultsStorable & Codable {}

extension Optional: UserDefaultsStorable where Wrapped: UserDefaultsStorable {
  /// Reads the wrapped value; `defaultValue` when the key holds nothing.
  public static func _getValue(from userDefaults: UserDefaults, forKey key: String, defaultValue: Wrapped?)
    -> Wrapped?
  {
    guard let object = userDefaults.object(forKey: key) else { return defaultValue }
    if let codec = StorageCodec<Wrapped>.forValueType {
      guard let stored = PropertyListValue(propertyListObject: object) else { return defaultValue }
      return (try? codec.decode(stored)) ?? defaultValue
    }
    // A type with conversions of its own needs a wrapped default to read with.
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

/// What a type's own `_getValue`/`_setValue` are called with: a `UserDefaults` that holds
/// one key's property list in memory, so that those conversions run apart from the
/// store, and the library saves what they wrote through its one ordered path.
///
/// Overrides the three primitives, and the typed accessors too (Apple's Foundation does
/// not promise that they go through the primitives); a URL is kept as the library keeps
/// it, as its absolute string. Used by one thread at a time, and thrown away after one
/// conversion.
final class UserDefaultsStandIn: UserDefaults {
  private var held: PropertyListValue?
  private var key: String
  /// Why the conversion could not store its value, if it could not.
  private(set) var failure: String?

  init(key: String, holding value: PropertyListValue?) {
    self.key = key
    self.held = value
    super.init(suiteName: nil)!
  }

  /// What `_setValue` left under the key; nil when it removed it.
  var value: PropertyListValue? { held }

  func cannotStore(_ reason: String) {
    failure = failure ?? reason
  }

  override func object(forKey defaultName: String) -> Any? {
    defaultName == key ? held?.propertyListObject : nil
  }

  override func set(_ value: Any?, forKey defaultName: String) {
    guard defaultName == key else { return }
    guard let value else {
      held = nil
      return
    }
    guard let stored = PropertyListValue(propertyListObject: value) else {
      cannotStore("\(type(of: value)) is not a property list")
      return
    }
    held = stored
  }

  override func removeObject(forKey defaultName: String) {
    if defaultName == key { held = nil }
  }

  override func set(_ value: Int, forKey defaultName: String) { set(value as Any, forKey: defaultName) }
  override func set(_ value: Float, forKey defaultName: String) { set(value as Any, forKey: defaultName) }
  override func set(_ value: Double, forKey defaultName: String) { set(value as Any, forKey: defaultName) }
  override func set(_ value: Bool, forKey defaultName: String) { set(value as Any, forKey: defaultName) }

  override func set(_ url: URL?, forKey defaultName: String) {
    set(url?.absoluteString as Any?, forKey: defaultName)
  }

  private func stored(_ defaultName: String) -> PropertyListValue? {
    defaultName == key ? held : nil
  }

  override func string(forKey defaultName: String) -> String? {
    guard case .string(let value) = stored(defaultName) else { return nil }
    return value
  }

  override func data(forKey defaultName: String) -> Data? {
    guard case .data(let value) = stored(defaultName) else { return nil }
    return value
  }

  override func array(forKey defaultName: String) -> [Any]? {
    guard case .array = stored(defaultName) else { return nil }
    return object(forKey: defaultName) as? [Any]
  }

  override func dictionary(forKey defaultName: String) -> [String: Any]? {
    guard case .dictionary = stored(defaultName) else { return nil }
    return object(forKey: defaultName) as? [String: Any]
  }

  override func url(forKey defaultName: String) -> URL? {
    string(forKey: defaultName).flatMap(URL.init(string:))
  }

  override func integer(forKey defaultName: String) -> Int {
    switch stored(defaultName) {
    case .integer(let value): value
    case .real(let value): Int(exactly: value.rounded(.towardZero)) ?? 0
    case .bool(let value): value ? 1 : 0
    case .string(let value): Int(value) ?? 0
    default: 0
    }
  }

  override func double(forKey defaultName: String) -> Double {
    switch stored(defaultName) {
    case .real(let value): value
    case .integer(let value): Double(value)
    case .bool(let value): value ? 1 : 0
    case .string(let value): Double(value) ?? 0
    default: 0
    }
  }

  override func float(forKey defaultName: String) -> Float { Float(double(forKey: defaultName)) }

  override func bool(forKey defaultName: String) -> Bool {
    switch stored(defaultName) {
    case .bool(let value): value
    case .integer(let value): value != 0
    case .real(let value): value != 0
    case .string(let value): ["yes", "true", "1"].contains(value.lowercased())
    default: false
    }
  }
}
