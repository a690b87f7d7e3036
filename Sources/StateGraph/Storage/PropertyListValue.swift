import Foundation

/// A property list: the shape in which a ``StorageBacking`` keeps a value.
///
/// Persisted properties are converted to and from this type, so a backing never sees the
/// property's own type. The cases are the property-list types UserDefaults and
/// `PropertyListSerialization` accept.
///
/// ```swift
/// let value: PropertyListValue = .dictionary(["theme": .string("dark"), "size": .integer(14)])
/// let object = value.propertyListObject  // ["theme": "dark", "size": 14] for Foundation
/// PropertyListValue(propertyListObject: object) == value  // true
/// ```
public enum PropertyListValue: Hashable, Sendable {
  /// A Boolean.
  case bool(Bool)
  /// An integer.
  case integer(Int)
  /// A floating-point number (`Float` values widen to it).
  case real(Double)
  /// A string (also how `URL` values are kept).
  case string(String)
  /// Raw bytes (also how JSON-encoded `Codable` values are kept).
  case data(Data)
  /// A point in time.
  case date(Date)
  /// An ordered list of property lists.
  case array([PropertyListValue])
  /// Property lists under string keys.
  case dictionary([String: PropertyListValue])
}

extension PropertyListValue {
  /// The value as the Foundation object that `UserDefaults.set(_:forKey:)` and
  /// `PropertyListSerialization` take.
  public var propertyListObject: Any {
    switch self {
    case .bool(let value): value
    case .integer(let value): value
    case .real(let value): value
    case .string(let value): value
    case .data(let value): value
    case .date(let value): value
    case .array(let values): values.map(\.propertyListObject)
    case .dictionary(let values): values.mapValues(\.propertyListObject)
    }
  }

  /// Reads a Foundation property-list object, as `UserDefaults.object(forKey:)` or
  /// `PropertyListSerialization` return it; nil when `object` is not a property list.
  public init?(propertyListObject object: Any) {
    guard let object = Self.unwrapped(object) else { return nil }
    if let number = Self.number(object) {
      self = number
      return
    }
    switch object {
    case let value as String: self = .string(value)
    case let value as Data: self = .data(value)
    case let value as Date: self = .date(value)
    case let values as [Any]:
      var elements: [PropertyListValue] = []
      elements.reserveCapacity(values.count)
      for element in values {
        guard let element = PropertyListValue(propertyListObject: element) else { return nil }
        elements.append(element)
      }
      self = .array(elements)
    case let values as [AnyHashable: Any]:
      var entries: [String: PropertyListValue] = [:]
      for (key, element) in values {
        guard let key = key.base as? String,
          let element = PropertyListValue(propertyListObject: element)
        else { return nil }
        entries[key] = element
      }
      self = .dictionary(entries)
    default:
      return nil
    }
  }

  /// swift-corelibs-foundation hands back arrays and dictionaries of `Any?`: look through
  /// the optional boxes.
  private static func unwrapped(_ object: Any) -> Any? {
    let mirror = Mirror(reflecting: object)
    guard mirror.displayStyle == .optional else { return object }
    return mirror.children.first.flatMap { unwrapped($0.value) }
  }

  /// Numbers and booleans. Swift values are told apart by their exact type: an `as?` cast
  /// would also turn an `NSNumber` holding 1 into `true`. An `NSNumber` (what Apple's
  /// Foundation, and `PropertyListSerialization` on Linux, return) says its kind in its
  /// Objective-C type code: `c` for booleans, `f` and `d` for reals.
  private static func number(_ object: Any) -> PropertyListValue? {
    let type = type(of: object)
    if type == Bool.self { return .bool(object as! Bool) }
    if type == Double.self { return .real(object as! Double) }
    if type == Float.self { return .real(Double(object as! Float)) }
    if type is NSNumber.Type, let number = object as? NSNumber {
      switch UInt8(bitPattern: number.objCType.pointee) {
      case UInt8(ascii: "c"), UInt8(ascii: "B"): return .bool(number.boolValue)
      case UInt8(ascii: "f"), UInt8(ascii: "d"): return .real(number.doubleValue)
      case UInt8(ascii: "Q"): return Int(exactly: number.uint64Value).map(PropertyListValue.integer)
      default: return .integer(number.intValue)
      }
    }
    if let value = object as? any BinaryInteger {
      return Int(exactly: value).map(PropertyListValue.integer)
    }
    return nil
  }
}

extension PropertyListValue: CustomStringConvertible {
  /// What a diagnostic shows: the kind, and the value when it is short.
  public var description: String {
    switch self {
    case .bool(let value): "a Bool (\(value))"
    case .integer(let value): "an integer (\(value))"
    case .real(let value): "a real number (\(value))"
    case .string(let value):
      value.count <= 40
        ? "a string (\(String(reflecting: value)))" : "a string of \(value.count) characters"
    case .data(let value): "data (\(value.count) bytes)"
    case .date(let value): "a date (\(value))"
    case .array(let values): "an array of \(values.count) elements"
    case .dictionary(let values): "a dictionary of \(values.count) entries"
    }
  }
}
