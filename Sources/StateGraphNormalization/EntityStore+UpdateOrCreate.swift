import StateGraph

extension EntityStore {
  /// Updates the entity with `id` in place, or creates and adds it when the store has
  /// none, as one step no other mutation can come between.
  ///
  /// ```swift
  /// let user = store.users.updateOrCreate(id: payload.id) { user in
  ///   user.name = payload.name
  /// } create: {
  ///   User(id: payload.id, name: payload.name)
  /// }
  /// ```
  ///
  /// Concurrent calls for one ID therefore end with one entity: the first creates it, the
  /// others update it, and with class entities every call returns the same instance.
  ///
  /// As in ``modify(_:_:)``, the closures run inside a batch with the store's mutations
  /// (and those of stores sharing its ``EntityStoreCoordinator``) held back, so their
  /// changes reach observers once. When a closure throws, the store is left as it was,
  /// every graph change the closure made is undone, no observer hears of anything, and
  /// the error is rethrown. (A class entity's plain, non-graph properties that `update`
  /// changed before throwing stay changed: they are the entity's own.)
  ///
  /// - Parameters:
  ///   - id: the ID to look for.
  ///   - update: changes the stored entity; a struct entity's changed copy is written back.
  ///   - create: makes the entity when the store has none with `id`; it is added under
  ///     its own ID.
  /// - Returns: the entity the store holds afterwards.
  /// - Complexity: O(1) on average, plus the closures.
  @discardableResult
  public func updateOrCreate<Failure: Error>(
    id: Entity.TypedID,
    update: (inout Entity) throws(Failure) -> Void,
    create: () throws(Failure) -> Entity
  ) throws(Failure) -> Entity {
    // The batch makes the closures' changes and the write one change for observers; the
    // transaction makes them one step for readers and drops them all when a closure
    // throws; the writer lock keeps other mutations out meanwhile.
    let enclosure = Enclosure()
    return try withGraphBatch { () throws(Failure) -> Entity in
      try writerLock.withLock { () throws(Failure) -> Entity in
        try withGraphTransaction { () throws(Failure) -> Entity in
          try updateOrCreateHoldingWriterLock(
            id: id, enclosure: enclosure, update: update, create: create)
        }
      }
    }
  }

  /// The body of ``updateOrCreate(id:update:create:)``. Call with `writerLock` held.
  private func updateOrCreateHoldingWriterLock<Failure: Error>(
    id: Entity.TypedID, enclosure: Enclosure,
    update: (inout Entity) throws(Failure) -> Void,
    create: () throws(Failure) -> Entity
  ) throws(Failure) -> Entity {
    if let (_, occupant) = stateLock.withLock({ occupiedSlot(for: id) }) {
      var entity = occupant.entity
      try update(&entity)
      mutate(enclosure: enclosure) { change in insertOrReplace(entity, id: id, &change) }
      return entity
    }
    let entity = try create()
    let createdID = entity.typedID  // user code: read before locking
    mutate(enclosure: enclosure) { change in insertOrReplace(entity, id: createdID, &change) }
    return entity
  }
}
