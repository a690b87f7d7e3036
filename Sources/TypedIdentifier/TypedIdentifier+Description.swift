extension TypedIdentifier: CustomStringConvertible {
  /// The raw value's description, so interpolation reads naturally.
  ///
  /// ```swift
  /// print("user: \(User.TypedID("user123"))")  // user: user123
  /// ```
  ///
  /// - Complexity: That of describing the raw value.
  public var description: String {
    String(describing: rawValue)
  }
}

extension TypedIdentifier: CustomDebugStringConvertible {
  /// The entity type and the raw value, for debugging output.
  ///
  /// ```swift
  /// debugPrint(User.TypedID("user123"))  // User.TypedID("user123")
  /// ```
  ///
  /// - Complexity: That of describing the raw value.
  public var debugDescription: String {
    "\(Entity.self).TypedID(\(String(reflecting: rawValue)))"
  }
}
