import StateGraph

/// What one mutation did to membership, applied to the membership nodes
/// once at its end, so a bulk call is one change.
struct MembershipChange<Entity> {
  var joined = 0
  var left = 0
  /// Entities the mutation took out of their slots. Their last reference
  /// may be here, and releasing it runs the entity's `deinit` (user code),
  /// so they are released only after `stateLock` is.
  var displaced: [Entity] = []
}

extension EntityStore {
  /// Runs `body` as one mutation: inside a batch (observers run once, after
  /// every lock here is released, and a throw rolls the store back), with
  /// `writerLock` and `stateLock` held.
  func mutate<R>(_ body: (inout MembershipChange<Entity>) -> R) -> R {
    withGraphBatch {
      writerLock.withLock {
        var change = MembershipChange<Entity>()
        let result = stateLock.withLock {
          let result = body(&change)
          commit(change)
          return result
        }
        withExtendedLifetime(change) {}  // `displaced` goes here, unlocked
        return result
      }
    }
  }

  /// Updates the membership nodes. Call with `stateLock` held.
  func commit(_ change: MembershipChange<Entity>) {
    guard change.joined > 0 || change.left > 0 else { return }
    countNode.wrappedValue += change.joined - change.left
    membershipNode.wrappedValue &+= 1
    deletedSinceCompaction += change.left
    compactOrderIfWorthIt()
  }

  /// Adds `entity` under `id`, or replaces the entity there. Call with
  /// `stateLock` held.
  func insertOrReplace(
    _ entity: Entity, id: Entity.TypedID, _ change: inout MembershipChange<Entity>
  ) {
    let slot = slot(for: id)
    if let occupant = slot.wrappedValue {
      replace(occupant, in: slot, with: entity, &change)
      return
    }
    let stamp = nextStamp
    nextStamp += 1
    slot.wrappedValue = Occupant(entity: entity, stamp: stamp)
    appendToOrder(slot, stamp: stamp)
    change.joined += 1
  }

  /// Puts `entity` where `occupant` was, keeping its place in the order;
  /// writes nothing when it is the same entity. Call with `stateLock` held.
  func replace(
    _ occupant: Occupant<Entity>, in slot: Slot<Entity>, with entity: Entity,
    _ change: inout MembershipChange<Entity>
  ) {
    if let isSameEntity, isSameEntity(occupant.entity, entity) { return }
    slot.wrappedValue = Occupant(entity: entity, stamp: occupant.stamp)
    change.displaced.append(occupant.entity)
  }

  /// Deletes the entity with `id` and returns it, or `nil` when absent. The
  /// slot stays for the computations reading it. Call with `stateLock` held.
  func remove(_ id: Entity.TypedID, _ change: inout MembershipChange<Entity>) -> Entity? {
    guard let (slot, occupant) = occupiedSlot(for: id) else { return nil }
    slot.wrappedValue = nil
    change.left += 1
    change.displaced.append(occupant.entity)
    return occupant.entity
  }
}
