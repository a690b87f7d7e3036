/// A filter made of a comparison: it passes the first value, then each value
/// for which `accepts(last value passed, next value)` is true.
///
/// ```swift
/// node.onChange(filter: .distinct) { print($0) }
/// node.onChange(filter: ChangeFilter { old, new in abs(new - old) >= 10 }) { print($0) }
/// ```
///
/// `onChange(filter:)` and `observe(filter:)` take one, and so does
/// `withGraphTrackingMap(filter:)`: it is a ``GraphFilter``. The comparison runs
/// where the change is made, on the writing thread: it is `@Sendable`.
public struct ChangeFilter<Value> {
  let accepts: @Sendable (_ previous: Value, _ next: Value) -> Bool
  // The last value `send(value:)` passed (only `GraphFilter` use sets it).
  private var last: Value?

  /// A filter that passes `next` when `accepts(previous, next)` is true,
  /// `previous` being the last value passed.
  public init(_ accepts: @escaping @Sendable (_ previous: Value, _ next: Value) -> Bool) {
    self.accepts = accepts
  }

  /// Every change the graph reports (for `Equatable` values the graph already
  /// drops writes of an equal value).
  public static var all: Self { Self { _, _ in true } }
}

extension ChangeFilter: Sendable where Value: Sendable {}

extension ChangeFilter where Value: Equatable {
  /// Only values different from the last one passed.
  public static var distinct: Self {
    // `!=` runs on the writing thread, as the graph's own equality cutoff does
    // (Core/Equality.swift): the comparison is made outside the `@Sendable`
    // closure type and given that type unchanged, so the closure carries no
    // capture of `Value`'s metatype.
    Self(Comparison<Value>(differ: { $0 != $1 }).sendable)
  }
}

extension ChangeFilter: GraphFilter {
  /// Returns `value` when it is the first one or `accepts(last, value)` is true,
  /// and remembers it as the last value passed; otherwise nil.
  public mutating func send(value: Value) -> Value? {
    if let last, !accepts(last, value) { return nil }
    last = value
    return value
  }
}

/// A comparison of two values, and the same function as a `@Sendable` one.
private struct Comparison<T> {
  let differ: (T, T) -> Bool

  /// The same closure, typed `@Sendable`; both structs hold one function value,
  /// so the cast keeps it as it is.
  var sendable: @Sendable (T, T) -> Bool {
    unsafeBitCast(self, to: SendableComparison<T>.self).differ
  }
}

private struct SendableComparison<T> {
  let differ: @Sendable (T, T) -> Bool
}
