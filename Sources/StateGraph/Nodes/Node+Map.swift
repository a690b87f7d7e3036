extension Stored {
  /// A computed node deriving a value from this one.
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

extension Computed {
  /// A computed node deriving a value from this one.
  public func map<U>(
    name: String? = nil, file: StaticString = #fileID, line: UInt = #line,
    _ transform: @escaping @Sendable (GraphContext, Value) -> U
  ) -> Computed<U> {
    Computed<U>(name: name, file: file, line: line) { context in
      transform(context, self.wrappedValue)
    }
  }
}
