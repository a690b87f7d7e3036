/// Decides whether writing `new` over `old` changes anything for readers.
///
/// Class entities compare by identity even when they are `Equatable`: a
/// class's `==` often compares IDs only, and a new instance with the same ID
/// is a change readers must see. Structs compare with `==` when `Equatable`.
/// Anything else always counts as a change.
enum EntitySameness {
  static func comparator<Entity>(for _: Entity.Type) -> ((Entity, Entity) -> Bool)? {
    if Entity.self is AnyObject.Type {
      return { unsafeBitCast($0, to: AnyObject.self) === unsafeBitCast($1, to: AnyObject.self) }
    }
    if let equatable = Entity.self as? any Equatable.Type {
      return comparing(Entity.self, as: equatable)
    }
    return nil
  }

  /// `Entity` and `E` are the same type at run time, so the casts are free.
  private static func comparing<Entity, E: Equatable>(
    _: Entity.Type, as _: E.Type
  ) -> (Entity, Entity) -> Bool {
    { unsafeBitCast($0, to: E.self) == unsafeBitCast($1, to: E.self) }
  }
}
