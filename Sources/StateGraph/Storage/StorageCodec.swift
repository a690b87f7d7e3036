import Foundation

/// Converts one property type to and from the property lists a backing keeps.
struct StorageCodec<Value> {
  /// nil means "remove what the backing holds" (an optional set to nil).
  let encode: (Value) throws -> PropertyListValue?
  let decode: (PropertyListValue) throws(StorageDecodingError) -> Value
}

/// Why a stored property list is not a value of the property's type.
enum StorageDecodingError: Error {
  /// The property list has another shape (`found` describes it).
  case typeMismatch(found: PropertyListValue)
  /// The data is not a valid encoding of the type.
  case undecodable(String)
}

extension StorageCodec {
  /// The codec for `Value`, or nil when it cannot persist. In order of preference:
  /// property-list types as they are, optionals as their wrapped value (nil removes),
  /// enums as their raw value, other `Codable` values as JSON data.
  ///
  /// Chosen at run time, once per node: Swift's choice among overlapping constrained
  /// initialisers (`Codable` versus `RawRepresentable`, optional or not) depends on how
  /// the argument is written, and each of them must store a type the same way.
  static var forValueType: Self? {
    if let type = Value.self as? any PropertyListConvertible.Type { return propertyList(type) }
    if let type = Value.self as? any _OptionalStorable.Type { return optional(type) }
    if let type = Value.self as? any RawRepresentable.Type, let codec = rawValue(type) {
      return codec
    }
    if let type = Value.self as? any Codable.Type { return json(type) }
    return nil
  }

  // Each helper below is called with `T` equal to `Value`: the casts between them always
  // succeed.

  private static func propertyList<T: PropertyListConvertible>(_: T.Type) -> Self {
    Self(
      encode: { ($0 as! T).propertyListValue },
      decode: { stored throws(StorageDecodingError) in
        guard let value = T(propertyListValue: stored) else { throw .typeMismatch(found: stored) }
        return value as! Value
      })
  }

  private static func optional<T: _OptionalStorable>(_: T.Type) -> Self? {
    guard let wrapped = StorageCodec<T.Wrapped>.forValueType else { return nil }
    return Self(
      encode: { try ($0 as! T)._wrapped.flatMap(wrapped.encode) },
      decode: { stored throws(StorageDecodingError) in
        T(_wrapped: try wrapped.decode(stored)) as! Value
      })
  }

  /// An enum is kept as its raw value, so other code reading the key sees `"dark"`.
  private static func rawValue<T: RawRepresentable>(_: T.Type) -> Self? {
    guard let raw = T.RawValue.self as? any PropertyListConvertible.Type else { return nil }
    return rawValue(T.self, raw)
  }

  private static func rawValue<T: RawRepresentable, Raw: PropertyListConvertible>(
    _: T.Type, _: Raw.Type
  ) -> Self {
    Self(
      encode: { (($0 as! T).rawValue as! Raw).propertyListValue },
      decode: { stored throws(StorageDecodingError) in
        if let raw = Raw(propertyListValue: stored), let value = T(rawValue: raw as! T.RawValue) {
          return value as! Value
        }
        // swift-state-graph's `@GraphUserDefault` kept a `Codable` enum as JSON data: a
        // key it wrote still reads (and is rewritten in the raw form by the next write).
        if case .data(let data) = stored, let decodable = T.self as? any Decodable.Type,
          let value = try? JSONDecoder().decode(decodable, from: data) as? T
        {
          return value as! Value
        }
        throw .typeMismatch(found: stored)
      })
  }

  /// Keys sorted, so that equal values give equal bytes.
  private static func json<T: Codable>(_: T.Type) -> Self {
    Self(
      encode: { value in
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return .data(try encoder.encode(value as! T))
      },
      decode: { stored throws(StorageDecodingError) in
        guard case .data(let data) = stored else { throw .typeMismatch(found: stored) }
        do {
          return try JSONDecoder().decode(T.self, from: data) as! Value
        } catch {
          throw .undecodable("\(stored): \(error)")
        }
      })
  }
}

extension StorageCodec where Value: UserDefaultsStorable {
  /// The codec of a ``GraphUserDefault`` property: the one every spelling uses for types
  /// the library can store, and otherwise the type's own `_getValue`/`_setValue`, run
  /// against a stand-in that holds the one key (`declared` is the default they read
  /// with).
  static func forUserDefaults(key: String, declared: Value) -> Self {
    if let codec = forValueType { return codec }
    return Self(
      encode: { value in
        let standIn = UserDefaultsStandIn(key: key, holding: nil)
        value._setValue(to: standIn, forKey: key)
        if let failure = standIn.failure { throw UnstorableValue(reason: failure) }
        return standIn.value
      },
      decode: { stored throws(StorageDecodingError) in
        let standIn = UserDefaultsStandIn(key: key, holding: stored)
        return Value._getValue(from: standIn, forKey: key, defaultValue: declared)
      })
  }
}

/// A value that its type's own conversion could not store.
struct UnstorableValue: Error, CustomStringConvertible {
  let reason: String
  var description: String { reason }
}

/// `Optional`, seen through a protocol: `Stored` offers a persisted initialiser for
/// optional enums, and storage finds optionals at run time. Not for use outside the
/// library.
public protocol _OptionalStorable {
  associatedtype Wrapped
  var _wrapped: Wrapped? { get }
  init(_wrapped: Wrapped?)
}

extension Optional: _OptionalStorable {
  public var _wrapped: Wrapped? { self }
  public init(_wrapped: Wrapped?) { self = _wrapped }
}
