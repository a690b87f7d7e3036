// Literals make fixtures and tests short (`let id: User.TypedID = "alice"`);
// the type annotation still picks the entity type, so safety is unchanged.

extension TypedIdentifier: ExpressibleByUnicodeScalarLiteral
where Entity.TypedIdentifierRawValue == String {
  /// Creates an identifier from a one-character literal.
  ///
  /// - Complexity: O(1).
  public init(unicodeScalarLiteral value: String) {
    self.init(value)
  }
}

extension TypedIdentifier: ExpressibleByExtendedGraphemeClusterLiteral
where Entity.TypedIdentifierRawValue == String {
  /// Creates an identifier from a one-character literal.
  ///
  /// - Complexity: O(1).
  public init(extendedGraphemeClusterLiteral value: String) {
    self.init(value)
  }
}

extension TypedIdentifier: ExpressibleByStringLiteral
where Entity.TypedIdentifierRawValue == String {
  /// Creates an identifier from a string literal.
  ///
  /// ```swift
  /// let id: User.TypedID = "user123"
  /// ```
  ///
  /// - Complexity: O(n) in the literal's length.
  public init(stringLiteral value: String) {
    self.init(value)
  }
}

extension TypedIdentifier: ExpressibleByIntegerLiteral
where Entity.TypedIdentifierRawValue == Int {
  /// Creates an identifier from an integer literal.
  ///
  /// ```swift
  /// let id: Order.TypedID = 42
  /// ```
  ///
  /// - Complexity: O(1).
  public init(integerLiteral value: Int) {
    self.init(value)
  }
}
