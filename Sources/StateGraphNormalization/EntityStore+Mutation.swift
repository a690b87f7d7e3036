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

/// What surrounds a store call on its thread, looked at before the call opens anything.
struct Enclosure {
  /// Inside a batch or transaction.
  let isBatch = GraphRuntime.isInsideBatch
  /// Inside a transaction: writes are staged.
  let isTransaction = GraphRuntime.isInsideTransaction
}

extension EntityStore {
  /// Runs `body` as one mutation: a transaction (readers on other threads see all of it
  /// or none of it), inside a batch (observers run once, after every lock here is
  /// released, and a throw rolls the store back), with `writerLock` and `stateLock` held.
  ///
  /// `enclosure` is what surrounded the caller, when the caller opened a batch itself
  /// (`modify`, `updateOrCreate`); by default, what surrounds this call.
  func mutate<R>(
    enclosure: Enclosure? = nil, _ body: (inout MembershipChange<Entity>) -> R
  ) -> R {
    // Known before this mutation's own batch opens: only inside another
    // batch can a slot it creates be emptied again by a rollback.
    let isNested = GraphRuntime.isInsideBatch
    let enclosure = enclosure ?? Enclosure()
    return withGraphBatch {
      writerLock.withLock {
        withGraphTransaction {
          var change = MembershipChange<Entity>(isNested: isNested)
          let (result, swept) = stateLock.withLock {
            let result = body(&change)
            commit(change)
            return (result, countCall())
          }
          withExtendedLifetime(swept) {}  // destroyed here, unlocked
          if !change.touched.isEmpty {
            GraphRuntime.afterOutermostBatch { [weak self, touched = change.touched] _ in
              self?.reexamine(touched)
            }
          }
          if enclosure.isBatch && (change.joined > 0 || change.left > 0) {
            followEnclosingBatch(isTransaction: enclosure.isTransaction)
          }
          withExtendedLifetime(change) {}  // `displaced` goes here, unlocked
          return result
        }
      }
    }
  }

  /// Puts `entity` in the slot of `id` when it holds an entity, and returns true; writes
  /// nothing and returns false when it holds none (the caller then makes a full mutation).
  /// One node changes, so it needs no transaction to reach other threads' readers in one
  /// step (one `mutate` would stage it, costing a staging level and a sorted commit); the
  /// batch still holds observers until the locks are released.
  func replaceIfPresent(_ entity: Entity, id: Entity.TypedID) -> Bool {
    withGraphBatch {
      writerLock.withLock {
        var change = MembershipChange<Entity>(isNested: false)
        let (replaced, swept) = stateLock.withLock { () -> (Bool, [Slot<Entity>]) in
          guard let (slot, occupant) = occupiedSlot(for: id) else { return (false, []) }
          replace(occupant, in: slot, with: entity, &change)
          return (true, countCall())
        }
        withExtendedLifetime(swept) {}  // destroyed here, unlocked
        withExtendedLifetime(change) {}  // `displaced` goes here, unlocked
        return replaced
      }
    }
  }

  /// A mutation that changed membership inside a batch or transaction the store did not
  /// open: `writerLock` is released before that one ends, so another thread's mutation may
  /// come between, and the membership nodes, written from this thread's view, may then
  /// disagree with the slots (a rolled-back batch puts back the count it wrote while the
  /// slot keeps another thread's later entity; a transaction commits a count computed
  /// before another thread's commit). Once it ended, the membership is derived again from
  /// the slots, the source of truth.
  private func followEnclosingBatch(isTransaction inTransaction: Bool) {
    // Once per store and kind of enclosure, however many mutations it holds.
    let key = ObjectIdentifier(inTransaction ? countNode : membershipNode)
    GraphRuntime.afterOutermostBatch(once: key) { [weak self] sawRollback in
      guard let self, sawRollback || inTransaction else { return }
      self.deriveMembershipFromSlots(announce: inTransaction)
    }
  }

  /// Sets the count from the slots and, when it changed or `announce`, tells readers of
  /// membership. O(*n*); only after an enclosing batch rolled back or an enclosing
  /// transaction committed.
  func deriveMembershipFromSlots(announce: Bool) {
    withGraphBatch {
      writerLock.withLock {
        stateLock.withLock {
          var occupied = 0
          for slot in slots.values where slot.untrackedValue != nil { occupied += 1 }
          let counted = countNode.untrackedValue
          guard occupied != counted || announce else { return }
          if occupied != counted { countNode.wrappedValue = occupied }
          membershipNode.wrappedValue &+= 1
        }
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
