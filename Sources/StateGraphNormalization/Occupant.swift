import StateGraph

/// What an entity's node holds while the entity is in the store.
///
/// The node, not a side table, is the source of truth: a throwing
/// `withGraphBatch` rolls back nodes, so an entity added, replaced or deleted
/// inside it comes back exactly as it was, join stamp included.
struct Occupant<Entity> {
  var entity: Entity
  /// When the entity joined the store (a store-wide counter): orders
  /// `getAll()` and tells current order entries from stale ones. Replacing
  /// or modifying an entity keeps its stamp; deleting and adding it again
  /// gives a new one.
  let stamp: UInt64
}

/// One entity's node. Not `Equatable`, so the node never compares values
/// itself: the store decides whether a write is a change (see
/// `EntityStore.isSameEntity`).
typealias Slot<Entity> = Stored<Occupant<Entity>?>

/// An entity's place in the join order: its ID and the stamp it joined
/// with. Stale once the ID's slot holds another stamp or none (the entity
/// was deleted, maybe re-added later). Holds the ID, not the slot, so that a
/// stale entry keeps no node alive.
struct OrderEntry<Entity: TypedIdentifiable> {
  let id: Entity.TypedID
  let stamp: UInt64
}
