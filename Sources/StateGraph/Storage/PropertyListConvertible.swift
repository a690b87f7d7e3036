import Foundation

/// A type stored as a property list as it is, not as JSON.
///
/// `Bool`, `Int`, `Double`, `Float`, `String`, `Data`, `Date`, `URL`, and arrays and
/// `String`-keyed dictionaries of them conform. A persisted property of such a type reads
/// and writes plain property-list values, so other code using the same UserDefaults key
/// sees an ordinary value.
///
/// ```swift
/// @GraphStored(backed: .userDefaults(key: "fontSizes"))
/// var fontSizes: [String: Double] = [:]   // a plist dictionary of reals
/// ```
///
/// The protocol refines `Codable`, so that `Stored`'s persisted initialiser for these types
/// is a more specific choice than the `Codable` one; conforming types are stored as
/// property lists, never as JSON. Conform a type of your own to store it in a
/// property-list shape of your choosing.
public protocol PropertyListConvertible: Codable {
  /// The value as a property list.
  var propertyListValue: PropertyListValue { get }

  /// Reads a value back; nil when the property list holds something else.
  init?(propertyListValue: PropertyListValue)
}

extension Bool: PropertyListConvertible {
  public var propertyListValue: PropertyListValue { .bool(self) }

  public init?(propertyListValue: PropertyListValue) {
    guard case .bool(let value) = propertyListValue else { return nil }
    self = value
  }
}

extension Int: PropertyListConvertible {
  public var propertyListValue: PropertyListValue { .integer(self) }

  public init?(propertyListValue: PropertyListValue) {
    switch propertyListValue {
    case .integer(let value): self = value
    // A whole real read back from another writer (`3.0`) is still the integer 3.
    case .real(let value): self.init(exactly: value)
    default: return nil
    }
  }
}

extension Double: PropertyListConvertible {
  public var propertyListValue: PropertyListValue { .real(self) }

  public init?(propertyListValue: PropertyListValue) {
    switch propertyListValue {
    case .real(let value): self = value
    case .integer(let value): self.init(value)
    default: return nil
    }
  }
}

extension Float: PropertyListConvertible {
  public var propertyListValue: PropertyListValue { .real(Double(self)) }

  public init?(propertyListValue: PropertyListValue) {
    guard let value = Double(propertyListValue: propertyListValue) else { return nil }
    self.init(value)
  }
}

extension String: PropertyListConvertible {
  public var propertyListValue: PropertyListValue { .string(self) }

  public init?(propertyListValue: PropertyListValue) {
    guard case .string(let value) = propertyListValue else { return nil }
    self = value
  }
}

extension Data: PropertyListConvertible {
  public var propertyListValue: PropertyListValue { .data(self) }

  public init?(propertyListValue: PropertyListValue) {
    guard case .data(let value) = propertyListValue else { return nil }
    self = value
  }
}

/// A date is kept as a real number, its seconds since the reference date (1 January 2001,
/// 00:00:00 UTC): exact to the last bit, where a property-list date written as XML (as
/// Linux's Foundation writes UserDefaults) keeps whole seconds only. A property-list date
/// that other code saved reads as well.
extension Date: PropertyListConvertible {
  public var propertyListValue: PropertyListValue { .real(timeIntervalSinceReferenceDate) }

  public init?(propertyListValue: PropertyListValue) {
    switch propertyListValue {
    case .real(let seconds): self.init(timeIntervalSinceReferenceDate: seconds)
    case .date(let value): self = value
    default: return nil
    }
  }
}

/// A URL is kept as its absolute string (`absoluteString`) and read back with
/// `URL(string:)`: web and file URLs, queries, fragments and relative references come back
/// equal. A URL made relative to a base URL comes back as its `absoluteURL`.
extension URL: PropertyListConvertible {
  public var propertyListValue: PropertyListValue { .string(absoluteString) }

  public init?(propertyListValue: PropertyListValue) {
    guard case .string(let string) = propertyListValue, let url = URL(string: string) else {
      return nil
    }
    self = url
  }
}

extension Array: PropertyListConvertible where Element: PropertyListConvertible {
  public var propertyListValue: PropertyListValue { .array(map(\.propertyListValue)) }

  public init?(propertyListValue: PropertyListValue) {
    guard case .array(let values) = propertyListValue else { return nil }
    var elements: [Element] = []
    elements.reserveCapacity(values.count)
    for value in values {
      guard let element = Element(propertyListValue: value) else { return nil }
      elements.append(element)
    }
    self = elements
  }
}

extension Dictionary: PropertyListConvertible
where Key == String, Value: PropertyListConvertible {
  public var propertyListValue: PropertyListValue { .dictionary(mapValues(\.propertyListValue)) }

  public init?(propertyListValue: PropertyListValue) {
    guard case .dictionary(let values) = propertyListValue else { return nil }
    var entries: [String: Value] = [:]
    for (key, value) in values {
      guard let entry = Value(propertyListValue: value) else { return nil }
      entries[key] = entry
    }
    self = entries
  }
}
