// The type tag is compile-time information: encoding it would tie stored data
// to Swift type names, and an ID must read back wherever a raw value was
// written (JSON from a server, a UserDefaults entry).

extension TypedIdentifier: Encodable where Entity.TypedIdentifierRawValue: Encodable {
  /// Encodes the raw value alone, as a single value.
  ///
  /// ```swift
  /// try JSONEncoder().encode([User.TypedID("a")])  // ["a"]
  /// ```
  ///
  /// - Complexity: That of encoding the raw value.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}

extension TypedIdentifier: Decodable where Entity.TypedIdentifierRawValue: Decodable {
  /// Decodes a bare raw value.
  ///
  /// ```swift
  /// try JSONDecoder().decode([User.TypedID].self, from: Data(#"["a"]"#.utf8))
  /// ```
  ///
  /// - Complexity: That of decoding the raw value.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    self.init(try container.decode(Entity.TypedIdentifierRawValue.self))
  }
}

extension TypedIdentifier: CodingKeyRepresentable
where Entity.TypedIdentifierRawValue: CodingKeyRepresentable {
  /// The raw value's key, so a dictionary keyed by IDs encodes as an object
  /// keyed by raw values.
  ///
  /// ```swift
  /// try JSONEncoder().encode([User.TypedID("a"): 1])  // {"a":1}
  /// ```
  ///
  /// - Complexity: O(1).
  public var codingKey: any CodingKey { rawValue.codingKey }

  /// Reads an ID from a dictionary key; `nil` when the key is not a valid
  /// raw value.
  ///
  /// - Complexity: That of converting the key.
  public init?<Key: CodingKey>(codingKey: Key) {
    guard let rawValue = Entity.TypedIdentifierRawValue(codingKey: codingKey) else { return nil }
    self.init(rawValue)
  }
}
