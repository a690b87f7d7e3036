/// Decides which values reach an observer's handler: the one filter family of
/// StateGraph, taken by ``GraphNode/onChange(filter:isolation:file:line:_:)``,
/// `observe(filter:)` and
/// ``withGraphTrackingMap(_:filter:initial:onChange:isolation:file:line:)``.
///
/// A filter sees every value, in order, one at a time (runs of one handler never
/// overlap), so it may keep state. Three filters come with the library:
///
/// ```swift
/// node.onChange(filter: PassthroughFilter()) { print($0) }  // every change
/// node.onChange(filter: DistinctFilter()) { print($0) }     // each different value
/// node.onChange(filter: ComparisonFilter { old, new in abs(new - old) >= 10 }) { print($0) }
/// ```
///
/// Write a conforming type for anything else:
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
///
/// An `onChange` filter runs where the change is made, on the writing thread, before
/// the value is handed to the handler's actor; a map's filter runs in the map's run.
public protocol GraphFilter<Value> {
  /// The type of the values it filters.
  associatedtype Value
  /// Returns what to pass to the handler for `value`, or nil to pass nothing.
  mutating func send(value: Value) -> Value?
}

/// swift-state-graph's name for ``GraphFilter``, kept so that code written for it
/// compiles unchanged: `struct Threshold: Filter { … }` conforms to ``GraphFilter``.
/// New code uses ``GraphFilter``, which no other module's `Filter` can shadow.
public typealias Filter = GraphFilter

/// Passes every value the graph reports, equal ones included (for `Equatable` values
/// the graph already drops a write of an equal value). The name is
/// swift-state-graph's, and so is the spelling `PassthroughFilter()`.
///
/// ```swift
/// withGraphTrackingMap({ progress.wrappedValue }, filter: PassthroughFilter()) { print($0) }
/// ```
public struct PassthroughFilter<Value>: GraphFilter, Sendable {
  /// A filter that passes everything.
  public init() {}

  /// Returns `value`.
  public func send(value: Value) -> Value? { value }
}

/// Passes the first value and each value different from the last one passed: what
/// `onChange(_:)`, `observe()` and `withGraphTrackingMap` do for `Equatable` values
/// when given no filter. The name is swift-state-graph's, and so is the spelling
/// `DistinctFilter()`.
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

extension DistinctFilter: Sendable where Value: Sendable {}

/// Passes the first value, then each value for which `accepts(last value passed,
/// next value)` is true.
///
/// ```swift
/// temperature.onChange(filter: ComparisonFilter { old, new in abs(new - old) >= 5 }) {
///   print("now \($0)°")
/// }
/// ```
public struct ComparisonFilter<Value>: GraphFilter {
  private let accepts: @Sendable (_ previous: Value, _ next: Value) -> Bool
  private var last: Value?

  /// A filter that passes `next` when `accepts(previous, next)` is true, `previous`
  /// being the last value passed; the first value always passes. The comparison is
  /// `@Sendable`: in an `onChange` filter it runs on whichever thread writes.
  public init(_ accepts: @escaping @Sendable (_ previous: Value, _ next: Value) -> Bool) {
    self.accepts = accepts
  }

  /// Returns `value` when it is the first one or `accepts(last, value)` is true, and
  /// remembers it as the last value passed; otherwise nil.
  public mutating func send(value: Value) -> Value? {
    if let last, !accepts(last, value) { return nil }
    last = value
    return value
  }
}

extension ComparisonFilter: Sendable where Value: Sendable {}
