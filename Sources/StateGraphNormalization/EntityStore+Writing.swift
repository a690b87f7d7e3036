import StateGraph

extension EntityStore {
  /// Adds `entity`, or replaces the entity with the same ID (which keeps its
  /// place in ``getAll()``).
  ///
  /// ```swift
  /// store.users.add(alice)
  /// ```
  ///
  /// Readers of this ID hear of it, and readers of membership when the ID is
  /// new. Adding the instance (class) or an equal value (`Equatable` struct)
  /// already stored changes nothing and notifies nobody.
  ///
  /// - Complexity: O(1) on average.
  public func add(_ entity: Entity) {
    // Replacing an entity the store holds changes one node, the ID's slot: readers see all
    // of it at once without a transaction.
    if replaceIfPresent(entity, id: entity.typedID) { return }
    add(CollectionOfOne(entity))
  }

  /// Adds or replaces each of `entities`, in order, as one change: observers
  /// and readers of membership hear of it once.
  ///
  /// ```swift
  /// store.users.add([alice, bob, carol])
  /// ```
  ///
  /// - Complexity: O(*k*) on average for *k* entities.
  public func add(_ entities: some Sequence<Entity>) {
    // IDs are read before locking: `typedID` and the sequence are user code.
    let keyed = entities.map { ($0.typedID, $0) }
    mutate { change in
      for (id, entity) in keyed { insertOrReplace(entity, id: id, &change) }
    }
  }

  /// Replaces the entity that has `entity`'s ID. Does nothing when the store
  /// has no such entity: use ``add(_:)-(Entity)`` to add or replace.
  ///
  /// ```swift
  /// store.users.update(renamedAlice)
  /// ```
  ///
  /// - Returns: Whether an entity was there to replace.
  /// - Complexity: O(1) on average.
  @discardableResult
  public func update(_ entity: Entity) -> Bool {
    // One node, the ID's slot, changes: no transaction (see `replaceIfPresent`).
    replaceIfPresent(entity, id: entity.typedID)
  }

  /// Changes the entity with `id` in place.
  ///
  /// ```swift
  /// store.users.modify(userID) { user in
  ///   user.name = "New Name"
  /// }
  /// ```
  ///
  /// With a struct entity the modified copy is written back, and readers of
  /// `id` hear of it (unless it is equal to the old value). With a class
  /// entity, `body` changes the instance's own nodes, so only readers of the
  /// properties it sets hear of it; assigning another instance to the
  /// parameter replaces the entity.
  ///
  /// `body` runs inside a transaction: other threads see its changes only once
  /// `modify` returns, observers hear of them once, and when
  /// it throws, every change it made is undone before the error is rethrown.
  /// Other mutations of this store wait while it runs (reads do not), so
  /// keep it short and do not wait in it for another thread using the store.
  /// If `body` deletes this ID through the store, its copy is dropped.
  ///
  /// - Returns: Whether the store had an entity with `id`; `body` runs only
  ///   then.
  /// - Complexity: O(1) on average, plus `body`.
  @discardableResult
  public func modify(_ id: Entity.TypedID, _ body: (inout Entity) throws -> Void) rethrows -> Bool {
    // The batch makes body's changes and the write-back one change for observers, the
    // transaction one step for readers; the
    // writer lock keeps other mutations out while body (user code) runs,
    // and being recursive lets body mutate this store.
    let enclosure = Enclosure()
    return try withGraphBatch {
      try writerLock.withLock {
        // A transaction: no other thread sees what `body` writes before all of it.
        try withGraphTransaction {
          guard let (slot, occupant) = stateLock.withLock({ occupiedSlot(for: id) }) else {
            return false
          }
          var entity = occupant.entity
          try body(&entity)
          mutate(enclosure: enclosure) { change in
            // Written back only over the entity `body` started from.
            guard let current = slot.wrappedValue, current.stamp == occupant.stamp else {
              return
            }
            replace(current, in: slot, with: entity, &change)
          }
          return true
        }
      }
    }
  }

  /// Deletes the entity with `id`.
  ///
  /// ```swift
  /// store.users.delete(userID)
  /// ```
  ///
  /// Readers of this ID and of membership hear of it. The store keeps a
  /// small node for the ID, so they also hear if it is added again.
  ///
  /// - Returns: The deleted entity, or `nil` when there was none.
  /// - Complexity: O(1) on average (amortized over the occasional compaction
  ///   of the join order).
  @discardableResult
  public func delete(_ id: Entity.TypedID) -> Entity? {
    mutate { change in remove(id, &change) }
  }

  /// Deletes the entities with `ids` as one change.
  ///
  /// ```swift
  /// store.users.delete([aliceID, bobID])
  /// ```
  ///
  /// - Returns: The deleted entities, in the order of `ids`.
  /// - Complexity: O(*k*) on average for *k* IDs.
  @discardableResult
  public func delete(_ ids: some Sequence<Entity.TypedID>) -> [Entity] {
    let ids = Array(ids)
    return mutate { change in ids.compactMap { remove($0, &change) } }
  }
}
