// The persisted initialisers of `Stored`. Each overload only admits the types that can
// persist (compile-time checking); which storage form a type gets is decided once, at run
// time, by `StorageCodec.forValueType`, so that it does not depend on which overload Swift
// picks where several fit (a `Codable` enum fits three).

extension Stored where Value: Codable {
  /// Creates a stored node whose value persists in `backing`.
  ///
  /// ```swift
  /// let theme = Stored(wrappedValue: "light", backed: .userDefaults(key: "theme"))
  /// theme.wrappedValue = "dark"  // saved now; the next launch starts with "dark"
  /// ```
  ///
  /// The node starts with what `backing` holds, or with `wrappedValue` when it holds nothing
  /// or a value this type cannot read (a ``StorageDiagnostic`` reports it; the stored value
  /// stays as it is until the node is written). Nodes on the same place share their value;
  /// see ``GraphStorageBacking``.
  ///
  /// Property-list types (``PropertyListConvertible``) are stored as they are,
  /// `RawRepresentable` values as their raw value, other `Codable` values as JSON data.
  /// An optional is stored as its wrapped value; setting it to `nil` removes what the place
  /// holds, after which the node reads `wrappedValue`.
  /// - Parameters:
  ///   - name: a debug name, shown in cycle reports and graph snapshots.
  ///   - wrappedValue: the declared value, read while the place holds nothing.
  ///   - backing: where the value persists; `.memory` keeps it in memory only.
  ///   - file: where the node is created, for cycle reports and snapshots.
  ///   - line: the line of `file`.
  public convenience init(
    name: String? = nil, wrappedValue: Value, backed backing: GraphStorageBacking,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    self.init(persisting: name, wrappedValue, backing, file, line)
  }
}

extension Stored where Value: PropertyListConvertible {
  /// Creates a stored node whose value persists in `backing` as a property list.
  /// (This overload also makes a literal such as `0.5` a `Double` rather than another
  /// `Codable` type.)
  public convenience init(
    name: String? = nil, wrappedValue: Value, backed backing: GraphStorageBacking,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    self.init(persisting: name, wrappedValue, backing, file, line)
  }
}

extension Stored where Value: RawRepresentable, Value.RawValue: PropertyListConvertible {
  /// Creates a stored node whose value persists in `backing` as its raw value.
  ///
  /// ```swift
  /// enum Theme: String { case light, dark }
  /// let theme = Stored(wrappedValue: Theme.light, backed: .userDefaults(key: "theme"))
  /// ```
  public convenience init(
    name: String? = nil, wrappedValue: Value, backed backing: GraphStorageBacking,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    self.init(persisting: name, wrappedValue, backing, file, line)
  }
}

extension Stored
where Value: RawRepresentable & Codable, Value.RawValue: PropertyListConvertible {
  /// Creates a stored node whose value persists in `backing` as its raw value.
  /// (This overload settles the choice for enums that are also `Codable`.)
  public convenience init(
    name: String? = nil, wrappedValue: Value, backed backing: GraphStorageBacking,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    self.init(persisting: name, wrappedValue, backing, file, line)
  }
}

extension Stored
where
  Value: _OptionalStorable, Value.Wrapped: RawRepresentable,
  Value.Wrapped.RawValue: PropertyListConvertible
{
  /// Creates a stored node whose optional value persists in `backing` as its raw value;
  /// `nil` removes it.
  ///
  /// ```swift
  /// let theme = Stored<Theme?>(wrappedValue: nil, backed: .userDefaults(key: "theme"))
  /// ```
  public convenience init(
    name: String? = nil, wrappedValue: Value, backed backing: GraphStorageBacking,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    self.init(persisting: name, wrappedValue, backing, file, line)
  }
}

extension Stored
where
  Value: _OptionalStorable & Codable, Value.Wrapped: RawRepresentable & Codable,
  Value.Wrapped.RawValue: PropertyListConvertible
{
  /// Creates a stored node whose optional value persists in `backing` as its raw value;
  /// `nil` removes it. (This overload settles the choice for optional `Codable` enums.)
  public convenience init(
    name: String? = nil, wrappedValue: Value, backed backing: GraphStorageBacking,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    self.init(persisting: name, wrappedValue, backing, file, line)
  }
}

extension Stored {
  /// Only property-list types, `RawRepresentable` types with a property-list raw value,
  /// `Codable` types, and optionals of them can persist.
  @available(
    *, unavailable,
    message: "a persisted value must be Codable, or RawRepresentable with a property-list raw value"
  )
  public convenience init(
    name: String? = nil, wrappedValue: Value, backed backing: GraphStorageBacking,
    file: StaticString = #fileID, line: UInt = #line
  ) {
    fatalError("unavailable")
  }

  /// Shared by the initialisers above; `.memory` makes a plain node.
  private convenience init(
    persisting name: String?, _ declared: Value, _ backing: GraphStorageBacking,
    _ file: StaticString, _ line: UInt
  ) {
    guard let place = backing.place else {
      self.init(name: name, wrappedValue: declared, persistence: nil, file: file, line: line)
      return
    }
    guard let codec = StorageCodec<Value>.forValueType else {
      preconditionFailure("StateGraph: \(Value.self) cannot persist")  // excluded by the overloads
    }
    self.init(persisting: name, declared, in: place, codec: codec, file, line)
  }

  /// A node persisted in `place` through `codec`: every persisted node, of either
  /// spelling, is made here (``GraphUserDefault`` too).
  convenience init(
    persisting name: String?, _ declared: Value, in place: any StorageBacking,
    codec: StorageCodec<Value>, _ file: StaticString, _ line: UInt
  ) {
    let (persistence, initialValue) = StoredPersistence.join(
      place, codec: codec, defaultValue: declared)
    self.init(
      name: name, wrappedValue: initialValue, persistence: persistence, file: file, line: line)
    persistence.bind(to: self)
  }
}
