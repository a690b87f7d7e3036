/// Decides which values reach an observer's handler: the one filter protocol of
/// StateGraph, taken by
/// ``withGraphTrackingMap(_:filter:initial:onChange:isolation:file:line:)``.
///
/// A filter sees every value, in order, one at a time, so it may keep state.
/// ``ChangeFilter`` (`.all`, `.distinct`, or a closure comparing the last value passed
/// with the next) covers most needs; write a conforming type for anything else:
///
/// ```swift
/// struct EveryTenPercent: GraphFilter {
///   private var last: Double?
///   mutating func send(value: Double) -> Double? {
///     if let last, abs(value - last) < 0.1 { return nil }
///     last = value
///     return value
///   }
/// }
/// ```
public protocol GraphFilter<Value> {
  /// The type of the values it filters.
  associatedtype Value
  /// Returns what to pass to the handler for `value`, or nil to pass nothing.
  mutating func send(value: Value) -> Value?
}

/// swift-state-graph's name for ``GraphFilter``, kept so that code written for it
/// compiles unchanged. New code uses ``GraphFilter``, which no other module's
/// `Filter` can shadow.
public typealias Filter = GraphFilter

/// Passes every value, equal ones included: swift-state-graph's spelling of
/// ``ChangeFilter/all``.
public struct PassthroughFilter<Value>: GraphFilter {
  /// A filter that passes everything.
  public init() {}

  /// Returns `value`.
  public func send(value: Value) -> Value? { value }
}

/// Passes the first value and each value different from the last one passed:
/// swift-state-graph's spelling of ``ChangeFilter/distinct``, and the default of
/// ``withGraphTrackingMap(_:initial:onChange:isolation:file:line:)``.
public struct DistinctFilter<Value: Equatable>: GraphFilter {
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
