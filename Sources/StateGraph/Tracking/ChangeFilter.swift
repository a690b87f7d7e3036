/// Decides which new values reach an `onChange` handler. The first value
/// (the one current at registration) always does.
///
/// ```swift
/// node.onChange(filter: .distinct) { print($0) }
/// node.onChange(filter: .init { old, new in abs(new - old) >= 10 }) { print($0) }
/// ```
///
/// The filter runs where the change is made, on the writing thread: it is `@Sendable`.
public struct ChangeFilter<Value>: Sendable {
  let accepts: @Sendable (_ previous: Value, _ next: Value) -> Bool

  /// A filter that delivers `next` when `accepts(previous, next)` is true,
  /// `previous` being the last value delivered.
  public init(_ accepts: @escaping @Sendable (_ previous: Value, _ next: Value) -> Bool) {
    self.accepts = accepts
  }

  /// Every change the graph reports (for `Equatable` values the graph already
  /// drops writes of an equal value).
  public static var all: Self { Self { _, _ in true } }
}

extension ChangeFilter where Value: Equatable {
  /// Only values different from the last one delivered.
  public static var distinct: Self { Self { $0 != $1 } }
}
