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

/// A slot as it stood in the join order when its entity joined. Stale once
/// the slot's stamp differs (the entity was deleted, maybe re-added later).
struct OrderEntry<Entity> {
  let slot: Slot<Entity>
  let stamp: UInt64

  /// Reads the slot (a tracked read) and returns its entity when this entry
  /// is still the one that places it.
  var liveEntity: Entity? {
    guard let occupant = slot.wrappedValue, occupant.stamp == stamp else { return nil }
    return occupant.entity
  }
}
