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
      if let entity = entry.liveEntity { entities.append(entity) }
    }
    // Fewer than counted: a rolled-back delete brought back an entity whose
    // entry a compaction had already dropped.
    return entities.count == expected ? entities : rebuildOrder()
  }

  /// Rebuilds the join order from the slots themselves, the source of
  /// truth, and returns the live entities. Call with `stateLock` held.
  func rebuildOrder() -> [Entity] {
    var live: [(entry: OrderEntry<Entity>, entity: Entity)] = []
    for slot in slots.values {
      if let occupant = slot.wrappedValue {
        live.append((OrderEntry(slot: slot, stamp: occupant.stamp), occupant.entity))
      }
    }
    live.sort { $0.entry.stamp < $1.entry.stamp }
    order = live.map(\.entry)
    deletedSinceCompaction = 0
    return live.map(\.entity)
  }

  /// Records that the entity now in `slot` joined with `stamp`. Call with
  /// `stateLock` held.
  func appendToOrder(_ slot: Slot<Entity>, stamp: UInt64) {
    order.append(OrderEntry(slot: slot, stamp: stamp))
  }

  /// Drops stale entries once they could make up half of the order, so the
  /// cost is O(1) amortized per delete. Call with `stateLock` held.
  func compactOrderIfWorthIt() {
    guard deletedSinceCompaction >= 32, deletedSinceCompaction * 2 >= order.count else { return }
    order.removeAll { $0.liveEntity == nil }
    deletedSinceCompaction = 0
  }
}
