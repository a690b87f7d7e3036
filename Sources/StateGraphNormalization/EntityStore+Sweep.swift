// Freeing slots nobody needs. A slot must stay while its entity is stored,
// while a computation reads it (it must hear the ID arrive or change), and
// while a batch still open has emptied or created it (a rollback may fill or
// empty it again). Everything else goes:
//
// - a slot a mutation emptied or created is re-examined once the outermost
//   batch around the mutation has ended (`GraphRuntime.afterOutermostBatch`);
// - a slot made for a computation's lookup of an absent ID is found by a
//   sweep of all empty slots, run when such slots have grown by half since
//   the last sweep: O(1) amortized per lookup.
//
// Computations read slots under `stateLock` and the checks below run under
// it, so "no dependents" there means no reader. Removed slots are released
// after the lock: destroying a node may flush effects queued on this thread.

extension EntityStore {
  /// Marks `id` as touched by the running mutation, for `reexamine` once the
  /// outermost batch ends. Call with `stateLock` held.
  func markPending(_ id: Entity.TypedID, _ change: inout MembershipChange<Entity>) {
    pendingIDs[id, default: 0] += 1
    change.touched.append(id)
  }

  /// Called once the outermost batch around a mutation has ended: frees the
  /// slots of `ids` that hold no entity and have no reader.
  func reexamine(_ ids: [Entity.TypedID]) {
    let removed = stateLock.withLock { () -> [Slot<Entity>] in
      var removed: [Slot<Entity>] = []
      for id in ids {
        guard let pending = pendingIDs[id] else { continue }
        if pending > 1 {
          pendingIDs[id] = pending - 1
          continue
        }
        pendingIDs[id] = nil
        if let slot = slots[id], isUnneeded(slot) {
          slots[id] = nil
          removed.append(slot)
        }
      }
      return removed
    }
    withExtendedLifetime(removed) {}  // destroyed here, unlocked
  }

  /// Counts a slot made for a computation's lookup and sweeps when such slots
  /// grew by half of all slots since the last sweep. Call with `stateLock`
  /// held; release what it returns after unlocking.
  func noteSlotMadeForReader() -> [Slot<Entity>] {
    slotsMadeForReaders += 1
    guard slotsMadeForReaders >= 64, slotsMadeForReaders * 2 >= slots.count else { return [] }
    slotsMadeForReaders = 0
    return sweep()
  }

  /// Removes every slot that holds no entity, has no reader and no open batch
  /// touched. Call with `stateLock` held; release what it returns after unlocking.
  func sweep() -> [Slot<Entity>] {
    let unneeded = slots.filter { id, slot in pendingIDs[id] == nil && isUnneeded(slot) }
    for id in unneeded.keys { slots[id] = nil }
    return Array(unneeded.values)
  }

  /// Empty and unread. Reads without tracking: the caller may be a computation.
  private func isUnneeded(_ slot: Slot<Entity>) -> Bool {
    slot.untrackedValue == nil && !slot.hasGraphDependents
  }
}
