import Testing

@testable import StateGraphNormalization

/// What a store keeps alive, checked with weak references.
@Suite("EntityStore lifetime")
struct EntityStoreLifetimeTests {
  @Test func aStoreAndItsNodesAreFreedWithItsLastReference() {
    let tracker = LifetimeTracker()
    do {
      let store = tracker.track(EntityStore([Note("a", "A"), Note("b", "B")]))
      _ = store.get(by: "absent")
      store.delete("b")
      let readers = [
        Computed { [weak store] _ in store?.getAll().count ?? -1 },
        Computed { [weak store] _ in store?.get(by: "a") == nil ? -1 : 1 },
      ]
      #expect(readers.map(\.wrappedValue) == [1, 1])
      for slot in store.slots.values { tracker.track(slot) }
      tracker.track(store.countNode)
      tracker.track(store.membershipNode)
      #expect(tracker.trackedCount == 4)  // one slot: "a"; "absent" and "b" have none
    }
    #expect(tracker.aliveCount == 0)
  }

  @Test func deletingOrReplacingReleasesTheOldEntity() {
    let tracker = LifetimeTracker()
    let store = EntityStore<Account>()
    do {
      store.add(tracker.track(Account("a", name: "A")))
      store.add(tracker.track(Account("b", name: "B")))
      store.add(Account("c", name: "C"))
    }
    #expect(tracker.aliveCount == 2)
    store.delete("a")
    #expect(tracker.aliveCount == 1)
    store.update(Account("b", name: "B2"))
    #expect(tracker.aliveCount == 0)
    withGraphBatch {
      store.update(tracker.track(Account("c", name: "C2")))
      store.update(Account("c", name: "C3"))  // the batch's middle value is dropped too
    }
    #expect(tracker.aliveCount == 0)
    #expect(store.get(by: "c")?.name == "C3")
  }

  @Test func theLeakFreePatternFreesStoreEntitiesAndComputations() {
    let tracker = LifetimeTracker()
    do {
      let store = tracker.track(LeakFree.NormalizedStore())
      tracker.track(store.users)
      tracker.track(store.posts)
      let alice = tracker.track(LeakFree.User(id: "alice", name: "Alice", store: store))
      let bob = tracker.track(LeakFree.User(id: "bob", name: "Bob", store: store))
      store.users.add([alice, bob])
      let first = tracker.track(LeakFree.Post(id: "p1", authorId: alice.id, store: store))
      let second = tracker.track(LeakFree.Post(id: "p2", authorId: bob.id, store: store))
      store.posts.add([first, second])
      tracker.track(alice.$posts)
      tracker.track(first.$authorName)

      // Every relationship read, so every cache is filled.
      #expect(alice.postCount == 1)
      #expect(bob.posts.map(\.typedID) == ["p2"])
      #expect(first.author === alice)
      #expect(first.authorName == "Alice")
      alice.name = "Alicia"
      #expect(first.authorName == "Alicia")
      store.posts.add(LeakFree.Post(id: "p3", authorId: alice.id, store: store))
      #expect(alice.postCount == 2)
    }
    #expect(tracker.aliveCount == 0)
  }

  /// Documents the note in `EntityStore`'s documentation: upstream's normalization guide writes
  /// `self.$posts = .init { _ in store.posts.filter { $0.authorId == self.id } }`,
  /// whose closure holds `self` and the store strongly. An entity then keeps
  /// itself alive through its own computation, and the store and its
  /// entities keep each other alive: fine for a store the app keeps for its
  /// whole life, a leak for one that comes and goes.
  @Test func theSeedsPatternKeepsTheWholeIslandAlive() {
    let tracker = LifetimeTracker()
    do {
      let store = tracker.track(Social.NormalizedStore())
      let alice = tracker.track(
        Social.User(id: "alice", name: "Alice", email: "alice@example.com", store: store))
      store.users.add(alice)
      #expect(alice.posts.isEmpty)
    }
    #expect(tracker.aliveCount == 2)
  }
}
