// Freeing slots nobody needs. A slot must stay while its entity is stored,
// while a computation reads it (it must hear the ID arrive or change), and
// while a batch still open has emptied or created it (a rollback may fill or
// empty it again). Everything else goes:
//
// - a slot a mutation emptied or created is re-examined once the outermost
//   batch around the mutation has ended (`GraphRuntime.afterOutermostBatch`):
//   add-and-delete leaves nothing behind;
// - an empty slot that had readers then (or was made for a computation's
//   lookup of an absent ID) may lose them later, when the computation runs
//   again or goes away, which the store cannot see happen. Such slots are
//   found by a sweep of all slots, run once max(32, slots / 2) store calls
//   (lookups and mutations) have passed since: O(1) amortized per call, and
//   at most that many calls after the readers left, memory is back.
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
        guard let slot = slots[id], slot.untrackedValue == nil else { continue }
        if slot.hasGraphDependents {
          mayHaveUnreadSlots = true  // its readers may leave later
        } else {
          slots[id] = nil
          removed.append(slot)
        }
      }
      shrinkIfSparse()
      return removed
    }
    withExtendedLifetime(removed) {}  // destroyed here, unlocked
  }

  /// Counts one store call, and sweeps once enough have passed since an empty
  /// slot that may lose its readers was left. Call with `stateLock` held;
  /// release what it returns after unlocking.
  func countCall() -> [Slot<Entity>] {
    guard mayHaveUnreadSlots else { return [] }
    callsSinceSweep += 1
    guard callsSinceSweep >= max(32, slots.count / 2) else { return [] }
    return sweep()
  }

  /// Removes every slot that holds no entity, has no reader and no open batch
  /// touched. Call with `stateLock` held; release what it returns after unlocking.
  func sweep() -> [Slot<Entity>] {
    callsSinceSweep = 0
    var removed: [Slot<Entity>] = []
    var emptyLeft = false
    for (id, slot) in slots where slot.untrackedValue == nil {
      if pendingIDs[id] == nil && !slot.hasGraphDependents {
        removed.append(slot)
        slots[id] = nil
      } else {
        emptyLeft = true
      }
    }
    mayHaveUnreadSlots = emptyLeft
    shrinkIfSparse()
    return removed
  }

  /// Gives back the dictionaries' storage once they are mostly empty (they
  /// keep their largest size otherwise). Call with `stateLock` held.
  func shrinkIfSparse() {
    if slots.capacity > 64, slots.count * 4 < slots.capacity {
      slots = Dictionary(uniqueKeysWithValues: slots.map { ($0.key, $0.value) })
    }
    if pendingIDs.isEmpty, pendingIDs.capacity > 64 { pendingIDs = [:] }
  }
}
