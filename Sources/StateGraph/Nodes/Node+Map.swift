extension Stored where Value: Sendable {
  /// A computed node deriving a value from this one. The computation may run on any
  /// thread, so this node's value must be `Sendable`.
  ///
  /// ```swift
  /// let celsius = Stored(wrappedValue: 20.0)
  /// let fahrenheit = celsius.map { _, c in c * 9 / 5 + 32 }
  /// ```
  public func map<U>(
    name: String? = nil, file: StaticString = #fileID, line: UInt = #line,
    _ transform: @escaping @Sendable (GraphContext, Value) -> U
  ) -> Computed<U> {
    Computed(name: name, file: file, line: line) { context in
      transform(context, self.wrappedValue)
    }
  }
}

extension Computed where Value: Sendable {
  /// A computed node deriving a value from this one. The computation may run on any
  /// thread, so this node's value must be `Sendable`.
  public func map<U>(
    name: String? = nil, file: StaticString = #fileID, line: UInt = #line,
    _ transform: @escaping @Sendable (GraphContext, Value) -> U
  ) -> Computed<U> {
    Computed<U>(name: name, file: file, line: line) { context in
      transform(context, self.wrappedValue)
    }
  }
}
