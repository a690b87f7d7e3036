import StateGraphNormalization
import Testing

/// One change per call or per batch, as observers see it; rollback.
@Suite("EntityStore batches")
struct EntityStoreBatchTests {
  struct Failure: Error {}

  @Test func bulkAddNotifiesOnce() {
    let store = EntityStore<Note>()
    let counts = Recorder<Int>()
    let idsSeen = Recorder<[Note.TypedID]>()
    let subscription = withGraphTracking {
      Computed { _ in store.count }.onChange { counts.append($0) }
      Computed { _ in store.getAll().map(\.typedID) }.onChange { idsSeen.append($0) }
    }
    store.add([Note("a", "A"), Note("b", "B"), Note("c", "C")])
    #expect(counts.values == [0, 3])
    #expect(idsSeen.values == [[], ["a", "b", "c"]])
    store.delete(["a", "b"])
    #expect(counts.values == [0, 3, 1])
    #expect(idsSeen.values == [[], ["a", "b", "c"], ["c"]])
    withExtendedLifetime(subscription) {}
  }

  @Test func aBatchOfCallsNotifiesOnce() {
    let store = EntityStore([Note("a", "A"), Note("b", "B")])
    let titles = Recorder<[String]>()
    let aTitles = Recorder<String?>()
    let subscription = withGraphTracking {
      Computed { _ in store.getAll().map(\.title) }.onChange { titles.append($0) }
      Computed { _ in store.get(by: "a")?.title }.onChange { aTitles.append($0) }
    }
    withGraphBatch {
      store.modify("a") { $0.title = "A1" }
      store.modify("a") { $0.title = "A2" }
      store.add(Note("c", "C"))
      store.delete("b")
      store["d"] = Note("d", "D")
    }
    #expect(titles.values == [["A", "B"], ["A2", "C", "D"]])
    #expect(aTitles.values == ["A", "A2"])
    withExtendedLifetime(subscription) {}
  }

  @Test func aClassEntityModifiedInManyPropertiesNotifiesOnce() {
    let alice = Account("alice", name: "Alice", balance: 1)
    let store = EntityStore([alice])
    let seen = Recorder<String>()
    let subscription = withGraphTracking {
      Computed { _ in "\(alice.name):\(alice.balance)" }.onChange { seen.append($0) }
    }
    store.modify("alice") { account in
      account.name = "Alicia"
      account.balance = 2
    }
    #expect(seen.values == ["Alice:1", "Alicia:2"])
    withExtendedLifetime(subscription) {}
  }

  @Test func aThrowingBatchLeavesTheStoreAsItWas() {
    let store = EntityStore([Note("a", "A"), Note("b", "B"), Note("c", "C")])
    let runs = RunCounter()
    let all = Computed { _ in runs.count("all", store.getAll()) }
    let count = Computed { _ in runs.count("count", store.count) }
    let b = Computed { _ in runs.count("b", store.get(by: "b")) }
    _ = (all.wrappedValue, count.wrappedValue, b.wrappedValue)

    #expect(throws: Failure.self) {
      try withGraphBatch {
        store.add(Note("x", "X"))
        store.delete("b")
        store.modify("c") { $0.title = "C2" }
        store.delete("a")
        store.add(Note("a", "A again"))  // moves to the end, gets a new stamp
        #expect(store.getAll().map(\.title) == ["C2", "X", "A again"])
        throw Failure()
      }
    }
    #expect(store.getAll() == [Note("a", "A"), Note("b", "B"), Note("c", "C")])
    #expect(store.count == 3)
    #expect(!store.contains("x"))
    #expect(all.wrappedValue == [Note("a", "A"), Note("b", "B"), Note("c", "C")])
    #expect(count.wrappedValue == 3)
    #expect(b.wrappedValue == Note("b", "B"))
    // Every node is back at its old version: readers have nothing to redo.
    #expect(runs["all"] == 1)
    #expect(runs["b"] == 1)

    store.add(Note("x", "X"))  // the store works on after a rollback
    #expect(store.getAll().map(\.typedID) == ["a", "b", "c", "x"])
  }

  @Test func aRollbackAfterCompactionRestoresTheOrder() {
    let notes = (0..<100).map { Note("\($0)", "n\($0)") }
    let store = EntityStore(notes)
    #expect(throws: Failure.self) {
      try withGraphBatch {
        // 80 deletions compact the join order inside the batch.
        store.delete((0..<80).map { Note.TypedID("\($0)") })
        #expect(store.count == 20)
        #expect(store.getAll() == Array(notes[80...]))
        throw Failure()
      }
    }
    #expect(store.count == 100)
    #expect(store.getAll() == notes)
    store.delete("5")
    #expect(store.getAll() == notes.filter { $0.typedID != "5" })
  }

  @Test func aThrowingModifyUndoesAClassEntitysChanges() {
    let alice = Account("alice", name: "Alice", balance: 1)
    let store = EntityStore([alice])
    #expect(throws: Failure.self) {
      try store.modify("alice") { account in
        account.name = "Changed"
        account.balance = 99
        throw Failure()
      }
    }
    #expect(alice.name == "Alice")
    #expect(alice.balance == 1)
  }
}
