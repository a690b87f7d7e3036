import StateGraph

/// Serializes the mutations of several ``EntityStore``s, as one database serializes
/// writes to its tables.
///
/// ```swift
/// final class Database {
///   let users: EntityStore<User>
///   let posts: EntityStore<Post>
///
///   init() {
///     let coordinator = EntityStoreCoordinator()
///     users = EntityStore(coordinator: coordinator)
///     posts = EntityStore(coordinator: coordinator)
///   }
/// }
/// ```
///
/// Share one when a mutation of one store, running user code (the body of
/// ``EntityStore/modify(_:_:)`` or ``EntityStore/updateOrCreate(id:update:create:)``),
/// mutates another: with separate coordinators, two threads doing that in opposite
/// directions would each wait for the other's store. With a shared one, a mutation of any
/// of its stores waits until the other stores' mutations have finished, and a mutation
/// nested inside another on the same thread goes ahead.
///
/// Reads never wait for the coordinator: every mutation is a transaction, so a read returns
/// the state before it or after it, never one half done. A store made without one gets its
/// own.
///
/// Thread safety: any thread may use it; it holds a recursive lock and nothing else.
public final class EntityStoreCoordinator: Sendable {
  /// Held across each mutation of the stores made with this coordinator.
  let writerLock = RecursiveLock()

  /// Creates a coordinator to give to the stores whose mutations it serializes.
  public init() {}
}

/// The name later upstream releases give ``EntityStoreCoordinator``.
public typealias EntityStoreMutationCoordinator = EntityStoreCoordinator

extension EntityStore {
  /// ``init(entities:coordinator:)`` under the label later upstream releases use.
  ///
  /// ```swift
  /// let coordinator = EntityStoreMutationCoordinator()
  /// let users = EntityStore<User>(mutationCoordinator: coordinator)
  /// ```
  public convenience init(
    entities: [Entity.TypedID: Entity] = [:], mutationCoordinator: EntityStoreCoordinator
  ) {
    self.init(entities: entities, coordinator: mutationCoordinator)
  }
}
