/// The identifier of an `Entity`: a raw value (a `String`, an `Int`...)
/// tagged with the type it identifies.
///
/// Two identifiers are equal when their entity types and raw values are
/// equal; identifiers of different entity types cannot even be compared.
///
/// ```swift
/// let id: User.TypedID = .init("user123")
/// id.rawValue          // "user123"
/// let ids: Set<User.TypedID> = [id, "user456"]
/// ```
///
/// It is `Hashable` and `Sendable`, `Codable` as its bare raw value (the
/// type tag is not written: `"user123"`, not `{"rawValue": "user123"}`),
/// and `Comparable` when the raw value is.
///
/// - Complexity: Initialising, comparing and hashing cost what they cost
///   for the raw value.
public struct TypedIdentifier<Entity: TypedIdentifiable>: Hashable, Sendable {
  /// The wrapped value.
  public let rawValue: Entity.TypedIdentifierRawValue

  /// The wrapped value: ``rawValue`` under swift-state-graph's name for it.
  ///
  /// ```swift
  /// post.author.id.raw == "user123"
  /// ```
  public var raw: Entity.TypedIdentifierRawValue { rawValue }

  /// Wraps `rawValue`.
  ///
  /// ```swift
  /// let id: User.TypedID = .init("user123")
  /// ```
  ///
  /// - Complexity: O(1), plus copying the raw value.
  public init(_ rawValue: Entity.TypedIdentifierRawValue) {
    self.rawValue = rawValue
  }

  /// Wraps `rawValue`; the same as ``init(_:)``, spelled like
  /// `RawRepresentable`'s initialiser.
  ///
  /// ```swift
  /// let id = User.TypedID(rawValue: "user123")
  /// ```
  ///
  /// - Complexity: O(1), plus copying the raw value.
  public init(rawValue: Entity.TypedIdentifierRawValue) {
    self.rawValue = rawValue
  }
}

extension TypedIdentifier: Comparable where Entity.TypedIdentifierRawValue: Comparable {
  /// Orders identifiers by their raw values.
  ///
  /// ```swift
  /// let sorted = [User.TypedID("b"), "a"].sorted()  // ["a", "b"]
  /// ```
  ///
  /// - Complexity: That of comparing the raw values.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.rawValue < rhs.rawValue
  }
}
