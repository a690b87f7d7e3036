import StateGraph

/// A reactive collection of entities, each stored once under its typed ID.
///
/// ```swift
/// final class NormalizedStore {
///   @GraphStored var users: EntityStore<User> = .init()
///   @GraphStored var posts: EntityStore<Post> = .init()
/// }
///
/// let store = NormalizedStore()
/// store.users.add(alice)
/// let name = Computed { _ in store.users.get(by: "alice")?.name ?? "?" }
/// ```
///
/// The store is a class: `@GraphStored var users` holds the same store
/// forever, and the store's own nodes report what changes inside it.
///
/// ## Reactivity
///
/// Every read is tracked, so a `Computed` (or a tracking closure) that reads
/// the store depends on exactly what it read:
///
/// - ``get(by:)``, ``contains(_:)`` and the subscript depend on that one ID:
///   the reader runs again when that ID is added, replaced, modified or
///   deleted, and not when any other ID changes. This holds for IDs that are
///   absent too, so a later ``add(_:)-(Entity)`` is seen.
/// - ``count`` and ``isEmpty`` depend on membership: they run again when an
///   entity joins or leaves.
/// - ``getAll()`` and ``filter(_:)`` depend on membership and on every entity
///   they returned or looked at (and `filter`'s predicate adds whatever it
///   reads), so replacing any entity reaches them too.
///
/// With class entities whose properties are `@GraphStored`, changing a
/// property reaches only the computations that read that property: the store
/// is not involved. Struct entities change through ``modify(_:_:)``,
/// ``update(_:)`` or the subscript.
///
/// Each mutating call is one change for observers, however many entities it
/// touches (`add([a, b, c])` notifies once), and so is a `withGraphBatch { }`
/// around several calls. A batch that throws undoes what it did to the store; so does a
/// `withGraphTransaction { }`, in which the store's changes are staged like any other
/// write.
///
/// ## Threads
///
/// Any thread may read and mutate a store. Mutations are serialized, and each
/// is a transaction: another thread sees all of it (the entities, the count and
/// the order, and what a ``modify(_:_:)`` body wrote) or none of it. Reads do not
/// wait for a mutation in progress; they return the committed state. The count
/// and membership always agree with the entities held, even after a batch that
/// raced another thread's mutation rolled back. No lock is held while observers
/// run. The store is `Sendable` when its entities are: a class
/// entity is then thread-safe on its own terms (for example immutable, or
/// with `@GraphStored` properties and `@unchecked Sendable`).
///
/// ## Memory
///
/// The store owns its entities; the graph owns nothing. A computation owns
/// its closure and its last value. So entities whose computations capture
/// `self` or the store strongly form reference cycles, and so do two
/// entities whose computations cache each other:
///
/// ```swift
/// // Cycles: self -> $posts -> closure -> self, and store -> user -> ... -> store.
/// self.$posts = .init { _ in store.posts.filter { $0.authorId == self.id } }
/// ```
///
/// That is harmless for a store that lives as long as the app. For a store
/// that comes and goes (a screen, a session, a test), capture what the
/// closure needs by value and the store weakly:
///
/// ```swift
/// self.$posts = .init { [id = typedID, weak store] _ in
///   store?.posts.filter { $0.authorId == id } ?? []
/// }
/// ```
///
/// and make one side of a two-way relationship a plain computed property,
/// which is just as reactive (its reads are tracked in whatever computation
/// calls it) but holds nothing:
///
/// ```swift
/// var author: User? { store?.users.get(by: authorId) }  // `weak var store`
/// ```
///
/// A store keeps one small node per ID while it holds that entity or a
/// computation depends on the ID (so that readers of an absent ID hear when
/// it arrives). A lookup outside computations creates nothing; a deleted
/// entity's node goes once the outermost batch around the deletion has
/// ended, unless a computation reads it. A node whose last reader went away
/// (the computation ran again without reading it, or was freed) goes at a
/// sweep, which runs once max(32, nodes / 2) calls on the store have passed
/// since such a node was left: a handful of calls later, memory is back to
/// what the stored entities need.
///
/// - Complexity: ``get(by:)``, ``contains(_:)``, ``add(_:)-(Entity)``, ``update(_:)``,
///   ``modify(_:_:)``, ``delete(_:)->Entity?`` and the subscript are O(1) on average;
///   ``getAll()`` and ``filter(_:)`` are O(*n*) in the number of entities.
public final class EntityStore<Entity: TypedIdentifiable> {
  // Lock order: `writerLock`, then `stateLock`, then the nodes' own locks.

  /// Serializes mutations, held across a whole mutation including a
  /// `modify` body (user code). Recursive, so that body may use the store.
  /// The coordinator's, shared by every store made with it.
  let writerLock: RecursiveLock

  /// Guards the containers below. Held only around container work and node
  /// reads and writes. The only user code that runs under it is the ID's
  /// `hash(into:)`, `==` and `description` and the entity's `==`: mutations
  /// run inside a batch, so observers wait until after it is released, and
  /// displaced entities are released after it (see `MembershipChange`).
  let stateLock = ValueLock()

  /// One node per ID that the store holds or a computation reads (see
  /// "Memory" above). Computations read slots under `stateLock`, so a slot
  /// found here with no dependents, under that lock, has no reader.
  var slots: [Entity.TypedID: Slot<Entity>] = [:]

  /// IDs whose slot a batch still open emptied or created: a rollback may
  /// fill or empty it again, so no sweep removes it until that batch ended.
  /// A count, as batches of several threads may touch one ID.
  var pendingIDs: [Entity.TypedID: Int] = [:]

  /// Whether an empty slot may have lost its readers unseen: a slot made for
  /// a computation's lookup of an absent ID, or emptied while read. Until a
  /// sweep finds none, store calls count towards the next one.
  var mayHaveUnreadSlots = false

  /// Store calls since the last sweep (see EntityStore+Sweep).
  var callsSinceSweep = 0

  /// Slots in the order their entities joined, with stale entries left by
  /// deletions until ``compactOrderIfWorthIt()`` drops them.
  var order: [OrderEntry<Entity>] = []

  /// Deletions since the last compaction: an estimate of stale entries.
  var deletedSinceCompaction = 0

  /// The next join stamp.
  var nextStamp: UInt64 = 0

  /// How many entities the store holds.
  let countNode: Stored<Int>

  /// Bumped whenever an entity joins or leaves, even when the count ends
  /// where it started (one added, another deleted).
  let membershipNode: Stored<UInt64>

  /// How a write decides it changes nothing; `nil` means it always changes.
  let isSameEntity: ((Entity, Entity) -> Bool)?

  /// The entity type's name, for node names in cycle reports.
  let entityName: String

  /// Creates an empty store.
  ///
  /// ```swift
  /// let users = EntityStore<User>()
  /// ```
  ///
  /// - Complexity: O(1).
  public convenience init() {
    self.init(coordinator: EntityStoreCoordinator())
  }

  /// Creates a store whose mutations are serialized with those of every other store made
  /// with `coordinator`, and which holds `entities`.
  ///
  /// ```swift
  /// let coordinator = EntityStoreCoordinator()
  /// let users = EntityStore<User>(coordinator: coordinator)
  /// let posts = EntityStore<Post>(entities: [welcome.typedID: welcome], coordinator: coordinator)
  /// ```
  ///
  /// The entities join in the dictionary's iteration order, which is the order
  /// ``getAll()`` returns them in. See ``EntityStoreCoordinator`` for when to share one.
  ///
  /// - Complexity: O(*n*) in the number of entities.
  public init(
    entities: [Entity.TypedID: Entity] = [:], coordinator: EntityStoreCoordinator = EntityStoreCoordinator()
  ) {
    writerLock = coordinator.writerLock
    entityName = String(describing: Entity.self)
    countNode = Stored(undoableWhenMadeInside: "EntityStore<\(entityName)>.count", wrappedValue: 0)
    membershipNode = Stored(undoableWhenMadeInside: "EntityStore<\(entityName)>.membership", wrappedValue: 0)
    isSameEntity = EntitySameness.comparator(for: Entity.self)
    if !entities.isEmpty { add(entities.values) }
  }

  /// Creates a store holding `entities`, in order. A later entity with the
  /// same ID replaces an earlier one.
  ///
  /// ```swift
  /// let users = EntityStore([alice, bob])
  /// ```
  ///
  /// - Complexity: O(*n*) in the number of entities.
  public convenience init(_ entities: some Sequence<Entity>) {
    self.init()
    add(entities)
  }

  /// The node of `id`, created when missing. Call with `stateLock` held.
  func slot(for id: Entity.TypedID) -> Slot<Entity> {
    if let slot = slots[id] { return slot }
    let slot = Slot<Entity>(undoableWhenMadeInside: "\(entityName)[\(id)]", wrappedValue: nil)
    slots[id] = slot
    return slot
  }

  /// The node of `id` and what it holds, when it holds an entity; creates
  /// nothing. Call with `stateLock` held.
  func occupiedSlot(for id: Entity.TypedID) -> (Slot<Entity>, Occupant<Entity>)? {
    guard let slot = slots[id], let occupant = slot.wrappedValue else { return nil }
    return (slot, occupant)
  }
}

/// Safe to share between threads when the entities are: the containers are read and
/// written only under `stateLock` (mutations also under `writerLock`), the nodes are
/// thread-safe, and the rest is immutable after `init`. Entities are handed to readers on
/// any thread, so they must themselves be `Sendable`.
extension EntityStore: @unchecked Sendable where Entity: Sendable {}
