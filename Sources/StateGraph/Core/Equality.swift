/// How a node decides that a new value is the same as the old one, which
/// stops propagation (equality cutoff): `Equatable` values compare with `==`,
/// class instances by identity, anything else always counts as changed.
@usableFromInline
enum Equality {
  /// Chosen once per node. Never optional: a node calls it on every change,
  /// and unwrapping an optional closure costs a retain and a release.
  @usableFromInline
  static func comparator<Value>(for _: Value.Type) -> (Value, Value) -> Bool {
    if let equatable = Value.self as? any Equatable.Type {
      return comparing(Value.self, as: equatable)
    }
    if Value.self is AnyObject.Type {
      return { unsafeBitCast($0, to: AnyObject.self) === unsafeBitCast($1, to: AnyObject.self) }
    }
    return { _, _ in false }
  }

  /// `Value` and `E` are the same type at run time, so the cast is free: `==`
  /// reads the arguments in place. (Casting the values instead would copy
  /// each through its value witnesses on every comparison.)
  private static func comparing<Value, E: Equatable>(
    _: Value.Type, as _: E.Type
  ) -> (Value, Value) -> Bool {
    unsafeBitCast(Comparison<E>(same: { $0 == $1 }), to: Comparison<Value>.self).same
  }

  /// A closure inside a struct keeps its representation through
  /// `unsafeBitCast`; a bare closure would be wrapped in a thunk on the way
  /// in and another on the way out, two more calls per comparison.
  private struct Comparison<T> {
    let same: (T, T) -> Bool
  }
}
