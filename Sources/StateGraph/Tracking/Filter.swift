/// Decides which values of a ``withGraphTrackingMap(_:filter:initial:onChange:isolation:file:line:)``
/// projection reach its handler. A filter sees every value the projection
/// produces, in order, one at a time, so it may keep state.
///
/// ```swift
/// struct EveryTenPercent: Filter {
///   private var last: Double?
///   mutating func send(value: Double) -> Double? {
///     if let last, abs(value - last) < 0.1 { return nil }
///     last = value
///     return value
///   }
/// }
/// ```
public protocol Filter<Value> {
  /// The type of the values it filters.
  associatedtype Value
  /// Returns what to pass to the handler for `value`, or nil to pass nothing.
  mutating func send(value: Value) -> Value?
}

/// Passes every value, equal ones included.
public struct PassthroughFilter<Value>: Filter {
  /// A filter that passes everything.
  public init() {}

  /// Returns `value`.
  public func send(value: Value) -> Value? { value }
}

/// Passes the first value and each value different from the last one passed:
/// the default of ``withGraphTrackingMap(_:initial:onChange:isolation:file:line:)``.
public struct DistinctFilter<Value: Equatable>: Filter {
  private var last: Value?

  /// A filter that has passed nothing yet.
  public init() {}

  /// Returns `value` unless it equals the last value passed.
  public mutating func send(value: Value) -> Value? {
    if let last, last == value { return nil }
    last = value
    return value
  }
}
