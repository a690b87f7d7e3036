import StateGraph

/// What one mutation did to membership, applied to the membership nodes
/// once at its end, so a bulk call is one change.
struct MembershipChange<Entity: TypedIdentifiable> {
  var joined = 0
  var left = 0
  /// Entities the mutation took out of their slots. Their last reference
  /// may be here, and releasing it runs the entity's `deinit` (user code),
  /// so they are released only after `stateLock` is.
  var displaced: [Entity] = []
  /// IDs whose slot this mutation emptied, or created inside an enclosing
  /// batch: re-examined once the outermost batch ends (see EntityStore+Sweep).
  var touched: [Entity.TypedID] = []
  /// Whether the mutation runs inside another batch.
  let isNested: Bool

  init(isNested: Bool) { self.isNested = isNested }
}

extension EntityStore {
  /// Runs `body` as one mutation: inside a batch (observers run once, after
  /// every lock here is released, and a throw rolls the store back), with
  /// `writerLock` and `stateLock` held.
  func mutate<R>(_ body: (inout MembershipChange<Entity>) -> R) -> R {
    // Known before this mutation's own batch opens: only inside another
    // batch can a slot it creates be emptied again by a rollback.
    let isNested = GraphRuntime.isInsideBatch
    return withGraphBatch {
      writerLock.withLock {
        var change = MembershipChange<Entity>(isNested: isNested)
        let (result, swept) = stateLock.withLock {
          let result = body(&change)
          commit(change)
          return (result, countCall())
        }
        withExtendedLifetime(swept) {}  // destroyed here, unlocked
        if !change.touched.isEmpty {
          GraphRuntime.afterOutermostBatch { [weak self, touched = change.touched] in
            self?.reexamine(touched)
          }
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
    // A rollback of an enclosing batch would leave a new slot empty, and one
    // that was empty may be emptied again: look at it once that batch ended.
    if change.isNested { markPending(id, &change) }
    let stamp = nextStamp
    nextStamp += 1
    slot.wrappedValue = Occupant(entity: entity, stamp: stamp)
    appendToOrder(id, stamp: stamp)
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
  /// slot goes once the outermost batch ended, unless a computation reads
  /// it. Call with `stateLock` held.
  func remove(_ id: Entity.TypedID, _ change: inout MembershipChange<Entity>) -> Entity? {
    guard let (slot, occupant) = occupiedSlot(for: id) else { return nil }
    slot.wrappedValue = nil
    markPending(id, &change)
    change.left += 1
    change.displaced.append(occupant.entity)
    return occupant.entity
  }
}
