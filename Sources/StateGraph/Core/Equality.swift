/// How a node decides that a new value is the same as the old one, which
/// stops propagation (equality cutoff): `Equatable` values compare with `==`,
/// class instances by identity, anything else always counts as changed.
enum Equality {
  static func comparator<Value>(for _: Value.Type) -> ((Value, Value) -> Bool)? {
    if let equatable = Value.self as? any Equatable.Type {
      return comparing(Value.self, as: equatable)
    }
    if Value.self is AnyObject.Type {
      return { unsafeBitCast($0, to: AnyObject.self) === unsafeBitCast($1, to: AnyObject.self) }
    }
    return nil
  }

  /// `Value` and `E` are the same type at run time; the cast is free.
  private static func comparing<Value, E: Equatable>(
    _: Value.Type, as _: E.Type
  ) -> (Value, Value) -> Bool {
    { unsafeBitCast($0, to: E.self) == unsafeBitCast($1, to: E.self) }
  }
}
