// The join order behind `getAll()`. Appending on join and leaving stale
// entries behind on delete keeps every mutation O(1); compaction every so
// often keeps `getAll()` linear in the live entities.

extension EntityStore {
  /// The live entities in join order. Reads (and so tracks) the membership
  /// node and every slot it visits. Call with `stateLock` held.
  func liveEntities() -> [Entity] {
    // Membership first: it is how a reader hears of entities that join,
    // whose slots it has never read.
    _ = membershipNode.wrappedValue
    let expected = countNode.wrappedValue
    var entities: [Entity] = []
    entities.reserveCapacity(expected)
    for entry in order {
      if let entity = liveEntity(at: entry) { entities.append(entity) }
    }
    // Fewer than counted: a rolled-back delete brought back an entity whose
    // entry a compaction had already dropped.
    return entities.count == expected ? entities : rebuildOrder()
  }

  /// Rebuilds the join order from the slots themselves, the source of
  /// truth, and returns the live entities. Call with `stateLock` held.
  func rebuildOrder() -> [Entity] {
    var live: [(entry: OrderEntry<Entity>, entity: Entity)] = []
    // Empty slots are skipped unread: a computation calling this depends on
    // the entities it returns, not on every ID a reader asked about.
    for (id, slot) in slots where slot.untrackedValue != nil {
      if let occupant = slot.wrappedValue {
        live.append((OrderEntry(id: id, stamp: occupant.stamp), occupant.entity))
      }
    }
    live.sort { $0.entry.stamp < $1.entry.stamp }
    order = live.map(\.entry)
    deletedSinceCompaction = 0
    return live.map(\.entity)
  }

  /// Records that the entity with `id` joined with `stamp`. Call with
  /// `stateLock` held.
  func appendToOrder(_ id: Entity.TypedID, stamp: UInt64) {
    order.append(OrderEntry(id: id, stamp: stamp))
  }

  /// Reads the slot of `entry`'s ID (a tracked read) and returns its entity
  /// when `entry` is still the one that places it. Call with `stateLock` held.
  func liveEntity(at entry: OrderEntry<Entity>) -> Entity? {
    guard let occupant = slots[entry.id]?.wrappedValue, occupant.stamp == entry.stamp else {
      return nil
    }
    return occupant.entity
  }

  /// Drops stale entries once they could make up half of the order, so the
  /// cost is O(1) amortized per delete, and a store emptied holds no stale
  /// entry. Call with `stateLock` held.
  func compactOrderIfWorthIt() {
    guard deletedSinceCompaction > 0, deletedSinceCompaction * 2 >= order.count else { return }
    // Untracked: a mutation made by a computation must not depend on slots.
    order.removeAll { entry in slots[entry.id]?.untrackedValue?.stamp != entry.stamp }
    if order.capacity > 64, order.count * 4 < order.capacity { order = order.map { $0 } }
    deletedSinceCompaction = 0
  }
}
