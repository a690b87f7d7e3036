extension EntityStore {
  /// The entity with `id`, or `nil` when the store has none.
  ///
  /// ```swift
  /// let author = Computed { _ in store.users.get(by: post.authorId)?.name }
  /// ```
  ///
  /// Inside a computation, the computation depends on `id` alone: it runs
  /// again when that ID is added, replaced, modified or deleted.
  ///
  /// - Complexity: O(1) on average.
  public func get(by id: Entity.TypedID) -> Entity? {
    if GraphRuntime.isComputing { return readForComputation(id) }
    // Outside computations nothing needs a node of an absent ID: an
    // Observation observer of it watches membership instead, registered
    // before looking again, so an arrival from then on reaches it. Nodes are
    // thread-safe: their reads need no lock of the store.
    let (slot, swept) = stateLock.withLock { (slots[id], countCall()) }
    withExtendedLifetime(swept) {}  // destroyed here, unlocked
    if let entity = slot?.wrappedValue?.entity { return entity }
    _ = membershipNode.wrappedValue
    return stateLock.withLock { slots[id] }?.wrappedValue?.entity
  }

  /// `get(by:)` inside a computation, which must depend on `id` alone: reads
  /// the slot of `id`, made if missing. Under `stateLock`, so that the read's
  /// dependency is recorded before any sweep can look for it. Reading a
  /// stored node runs no user code.
  private func readForComputation(_ id: Entity.TypedID) -> Entity? {
    let (entity, swept) = stateLock.withLock { () -> (Entity?, [Slot<Entity>]) in
      let swept = countCall()
      if let slot = slots[id] { return (slot.wrappedValue?.entity, swept) }
      mayHaveUnreadSlots = true  // its reader may go away
      return (slot(for: id).wrappedValue?.entity, swept)
    }
    withExtendedLifetime(swept) {}  // destroyed here, unlocked
    return entity
  }

  /// Whether the store holds an entity with `id`.
  ///
  /// ```swift
  /// if store.users.contains("alice") { print("Alice is here") }
  /// ```
  ///
  /// Inside a computation, the computation depends on `id` alone, like
  /// ``get(by:)``.
  ///
  /// - Complexity: O(1) on average.
  public func contains(_ id: Entity.TypedID) -> Bool {
    get(by: id) != nil
  }

  /// The number of entities in the store.
  ///
  /// ```swift
  /// print("Total users: \(store.users.count)")
  /// ```
  ///
  /// Inside a computation, the computation depends on membership: it runs
  /// again when an entity joins or leaves, not when one is modified.
  ///
  /// - Complexity: O(1).
  public var count: Int { countNode.wrappedValue }

  /// Whether the store holds no entity. Tracked like ``count``.
  ///
  /// ```swift
  /// if store.users.isEmpty { print("No users found") }
  /// ```
  ///
  /// - Complexity: O(1).
  public var isEmpty: Bool { count == 0 }

  /// Every entity, in the order they joined the store (replacing or
  /// modifying an entity keeps its place; deleting and adding it again moves
  /// it to the end).
  ///
  /// ```swift
  /// let names = Computed { _ in store.users.getAll().map(\.name) }
  /// ```
  ///
  /// Inside a computation, the computation depends on membership and on
  /// every entity returned: it runs again when one joins, leaves or is
  /// replaced. For a single entity, ``get(by:)`` is both faster and finer.
  ///
  /// - Complexity: O(*n*) in the number of entities.
  public func getAll() -> [Entity] {
    // Under the lock the order and the count agree. Reading stored nodes
    // runs no user code, so holding it over the walk is safe.
    stateLock.withLock { liveEntities() }
  }

  /// The entities that satisfy `isIncluded`, in the order of ``getAll()``.
  ///
  /// ```swift
  /// let posts = Computed { _ in store.posts.filter { $0.authorId == aliceID } }
  /// ```
  ///
  /// Tracked like ``getAll()``, plus whatever `isIncluded` reads: with class
  /// entities, a change to a property the predicate reads runs the
  /// computation again. `isIncluded` runs with no lock held.
  ///
  /// - Complexity: O(*n*) in the number of entities, times the cost of
  ///   `isIncluded`.
  public func filter(_ isIncluded: (Entity) throws -> Bool) rethrows -> [Entity] {
    try getAll().filter(isIncluded)  // the predicate is user code: no lock
  }
}
