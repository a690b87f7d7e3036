import Testing

@testable import StateGraph
@testable import StateGraphNormalization

/// A store keeps a slot (a graph node) for an ID only while it holds that entity or a
/// computation depends on the ID; memory goes back to where it started.
@Suite("EntityStore memory")
struct EntityStoreMemoryTests {
  struct Failure: Error {}

  /// The store's graph nodes: its slots, its count and its membership node.
  static func nodes<E>(of store: EntityStore<E>) -> Int {
    store.stateLock.withLock { store.slots.count } + 2
  }

  @Test func lookupsOfUnknownIDsMakeNoNode() {
    let store = EntityStore([Note("a", "A")])
    let before = Self.nodes(of: store)
    for i in 0..<100_000 {
      #expect(store.get(by: .init("unknown-\(i)")) == nil)
      if i.isMultiple(of: 3) { _ = store.contains(.init("other-\(i)")) }
    }
    #expect(Self.nodes(of: store) == before)
    #expect(store.count == 1)
  }

  @Test func addAndDeleteCyclesLeaveNothing() {
    let store = EntityStore<Note>()
    let tracker = LifetimeTracker()
    for i in 0..<1_000 {
      store.add(Note("n\(i)", "note"))
      tracker.track(store.stateLock.withLock { store.slots[.init("n\(i)")]! })
      store.delete(.init("n\(i)"))
    }
    #expect(store.count == 0)
    #expect(Self.nodes(of: store) == 2)
    #expect(tracker.aliveCount == 0)
    #expect(store.stateLock.withLock { store.order.count } == 0)
    #expect(store.getAll().isEmpty)
  }

  /// A computation reading an absent ID keeps its slot, hears the ID arrive, and once
  /// the computation is gone a sweep frees the slot within max(32, slots / 2) calls.
  @Test func aComputationsSlotsLiveAsLongAsItReadsThem() {
    let store = EntityStore([Note("kept", "K")])
    let runs = RunCounter()
    let tracker = LifetimeTracker()
    do {
      let readers = (0..<200).map { i in
        Computed { _ in runs.count("r\(i)", store.get(by: .init("absent-\(i)"))?.title) }
      }
      #expect(readers.allSatisfy { $0.wrappedValue == nil })
      #expect(Self.nodes(of: store) == 1 + 200 + 2)
      for i in 0..<200 { tracker.track(store.stateLock.withLock { store.slots[.init("absent-\(i)")]! }) }
      store.add(Note("absent-7", "arrived"))
      #expect(readers[7].wrappedValue == "arrived")
      #expect(readers[8].wrappedValue == nil)
      #expect(runs["r7"] == 2)
      #expect(runs["r8"] == 1)
      // Plenty of calls while the readers live: nothing may go.
      for i in 0..<300 { _ = store.get(by: .init("elsewhere-\(i)")) }
      #expect(Self.nodes(of: store) == 1 + 200 + 2)  // "absent-7" now holds an entity
      #expect(tracker.aliveCount == 200)
    }
    // The readers are gone: well within max(32, slots / 2) calls, a sweep frees their
    // empty slots; "absent-7" keeps its entity.
    for i in 0..<150 { _ = store.get(by: .init("elsewhere-\(i)")) }
    #expect(Self.nodes(of: store) == 2 + 2)
    #expect(tracker.aliveCount == 1)
    #expect(store.get(by: "absent-7")?.title == "arrived")
  }

  /// A deleted entity's slot stays while a computation reads it, so that the computation
  /// hears it come back; with no reader it goes with the delete.
  @Test func aDeletedEntitysSlotStaysOnlyWhileRead() {
    let store = EntityStore([Note("a", "A"), Note("b", "B")])
    let runs = RunCounter()
    var reader: Computed<String?>? = Computed { _ in runs.count("a", store.get(by: "a")?.title) }
    #expect(reader?.wrappedValue == "A")
    store.delete("a")
    store.delete("b")
    #expect(Self.nodes(of: store) == 1 + 2)  // "a" is read, "b" is not
    #expect(reader?.wrappedValue == nil)
    store.add(Note("a", "A2"))
    #expect(reader?.wrappedValue == "A2")
    #expect(runs["a"] == 3)
    reader = nil
    store.delete("a")
    #expect(Self.nodes(of: store) == 2)
  }

  /// A batch that deletes and rolls back keeps the entity and its slot; one that adds
  /// and rolls back leaves no slot; one that deletes and commits frees it at its end.
  @Test func batchesFreeSlotsOnlyOnceTheyEnded() {
    let store = EntityStore([Note("a", "A")])
    #expect(throws: Failure.self) {
      try withGraphBatch {
        store.delete("a")
        store.add(Note("new", "N"))
        #expect(Self.nodes(of: store) == 2 + 2)  // both slots stay while the batch is open
        throw Failure()
      }
    }
    #expect(store.get(by: "a")?.title == "A")
    #expect(store.get(by: "new") == nil)
    #expect(store.count == 1)
    #expect(Self.nodes(of: store) == 1 + 2)
    withGraphBatch {
      store.delete("a")
      #expect(Self.nodes(of: store) == 1 + 2)
    }
    #expect(Self.nodes(of: store) == 2)
    #expect(store.count == 0)
    #expect(store.getAll().isEmpty)
  }

  /// Other suites make nodes concurrently in this process, so the exact number of live
  /// C nodes is checked in a child process: any sequence of adds, deletes and lookups,
  /// inside and outside computations and batches, ends where it started.
  @Test func liveNodesReturnToTheirStartingLevel() async {
    await #expect(processExitsWith: .success) {
      let store = EntityStore<Note>()
      let start = GraphCore.liveNodeCount
      var generator = SplitMix(seed: 17)
      do {
        var readers: [Computed<Int>] = []
        for step in 0..<5_000 {
          let id = Note.TypedID("n\(generator.next() % 300)")
          switch generator.next() % 8 {
          case 0, 1: store.add(Note(id.rawValue, "\(step)"))
          case 2: store.delete(id)
          case 3: _ = store.get(by: id)
          case 4:
            let reader = Computed { _ in store.get(by: id)?.title.count ?? -1 }
            _ = reader.wrappedValue
            readers.append(reader)
          case 5: if !readers.isEmpty { readers.removeFirst() }
          case 6:
            try? withGraphBatch {
              store.add(Note(id.rawValue, "batch"))
              store.delete(.init("n\(generator.next() % 300)"))
              if generator.next() % 2 == 0 { throw Failure() }
            }
          default: _ = store.getAll()
          }
        }
        precondition(GraphCore.liveNodeCount > start)
      }
      store.delete(store.getAll().map(\.typedID))
      for i in 0..<1_000 { _ = store.get(by: .init("after-\(i)")) }  // runs a sweep
      precondition(store.count == 0)
      precondition(GraphCore.liveNodeCount == start, "\(GraphCore.liveNodeCount) != \(start)")
    }
  }
}

/// A small seeded generator: the same sequence on every run.
struct SplitMix {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> Int {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int(truncatingIfNeeded: (z ^ (z >> 31)) >> 1)
  }
}
