import StateGraphNormalization
import Testing

/// Every call of the API, outside any computation.
@Suite("EntityStore API")
struct EntityStoreAPITests {
  let a = Note("a", "Alpha")
  let b = Note("b", "Beta")
  let c = Note("c", "Gamma")

  @Test func aNewStoreIsEmpty() {
    let store = EntityStore<Note>()
    #expect(store.isEmpty)
    #expect(store.count == 0)
    #expect(store.getAll().isEmpty)
    #expect(store.get(by: "a") == nil)
    #expect(!store.contains("a"))
  }

  @Test func addThenGetContainsCount() {
    let store = EntityStore<Note>()
    store.add(a)
    #expect(store.get(by: "a") == a)
    #expect(store.contains("a"))
    #expect(!store.contains("b"))
    #expect(store.count == 1)
    #expect(!store.isEmpty)
  }

  @Test func bulkAddKeepsOrderAndALaterDuplicateWins() {
    let store = EntityStore<Note>()
    store.add([a, b, c, Note("a", "Alpha 2")])
    #expect(store.count == 3)
    #expect(store.getAll().map(\.title) == ["Alpha 2", "Beta", "Gamma"])
  }

  @Test func initialiserTakesEntities() {
    let store = EntityStore([a, b])
    #expect(store.getAll() == [a, b])
  }

  @Test func addingAnExistingIDReplacesInPlace() {
    let store = EntityStore([a, b])
    store.add(Note("a", "Replaced"))
    #expect(store.count == 2)
    #expect(store.getAll().map(\.title) == ["Replaced", "Beta"])
  }

  @Test func getAllIsInJoinOrderAndReAddingMovesToTheEnd() {
    let store = EntityStore([a, b, c])
    store.delete("a")
    store.add(a)
    #expect(store.getAll().map(\.typedID) == ["b", "c", "a"])
  }

  @Test func filterKeepsOrder() {
    let store = EntityStore([a, b, c])
    #expect(store.filter { $0.title.contains("a") }.map(\.typedID) == ["a", "b", "c"])
    #expect(store.filter { $0.title.hasPrefix("G") } == [c])
    #expect(store.filter { _ in false }.isEmpty)
  }

  @Test func filterRethrows() {
    struct Stop: Error {}
    let store = EntityStore([a])
    #expect(throws: Stop.self) { try store.filter { _ in throw Stop() } }
  }

  @Test func updateReplacesOnlyWhatExists() {
    let store = EntityStore([a])
    #expect(store.update(Note("a", "Updated")))
    #expect(store.get(by: "a")?.title == "Updated")
    #expect(!store.update(b))
    #expect(!store.contains("b"))
    #expect(store.count == 1)
  }

  @Test func modifyWritesTheCopyBack() {
    let store = EntityStore([a, b])
    let found = store.modify("a") { note in
      note.title = "Modified"
      note.pinned = true
    }
    #expect(found)
    #expect(store.get(by: "a") == Note("a", "Modified", pinned: true))
    #expect(store.getAll().map(\.typedID) == ["a", "b"])
  }

  @Test func modifyOfAMissingIDDoesNotRunTheBody() {
    let store = EntityStore<Note>()
    var ran = false
    #expect(!store.modify("zzz") { _ in ran = true })
    #expect(!ran)
    #expect(store.isEmpty)
  }

  @Test func modifyThatThrowsChangesNothing() {
    struct Stop: Error {}
    let store = EntityStore([a])
    #expect(throws: Stop.self) {
      try store.modify("a") { note in
        note.title = "Half done"
        throw Stop()
      }
    }
    #expect(store.get(by: "a") == a)
  }

  @Test func modifyMayReadTheStore() {
    let store = EntityStore([a, b])
    store.modify("a") { note in
      note.title = store.get(by: "b")!.title + " too"
    }
    #expect(store.get(by: "a")?.title == "Beta too")
  }

  @Test func modifyDropsItsCopyWhenTheBodyDeletesTheEntity() {
    let store = EntityStore([a, b])
    store.modify("a") { note in
      note.title = "Ghost"
      store.delete("a")
    }
    #expect(!store.contains("a"))
    #expect(store.count == 1)
  }

  @Test func deleteReturnsTheEntity() {
    let store = EntityStore([a, b])
    #expect(store.delete("a") == a)
    #expect(store.delete("a") == nil)
    #expect(!store.contains("a"))
    #expect(store.count == 1)
    #expect(store.getAll() == [b])
  }

  @Test func bulkDelete() {
    let store = EntityStore([a, b, c])
    #expect(store.delete(["c", "zzz", "a"]) == [c, a])
    #expect(store.getAll() == [b])
  }

  @Test func subscriptGetsAddsReplacesAndDeletes() {
    let store = EntityStore<Note>()
    store["a"] = a
    #expect(store["a"] == a)
    store["a"] = Note("a", "Replaced")
    #expect(store["a"]?.title == "Replaced")
    #expect(store.count == 1)
    store["a"] = nil
    #expect(store["a"] == nil)
    #expect(store.isEmpty)
    store["missing"] = nil  // deleting nothing is fine
    #expect(store.isEmpty)
  }

  @Test func assigningAnEntityUnderAnotherIDStops() async {
    await #expect(processExitsWith: .failure) {
      let store = EntityStore<Note>()
      store["a"] = Note("b", "B")
    }
  }

  @Test func manyDeletesKeepJoinOrder() {
    // Enough deletions to compact the join order several times.
    let store = EntityStore((0..<1_000).map { Note("\($0)", "n\($0)") })
    for index in stride(from: 0, to: 1_000, by: 3) { store.delete(.init("\(index)")) }
    store.add(Note("0", "back"))
    let expected = (0..<1_000).filter { $0 % 3 != 0 }.map { "\($0)" } + ["0"]
    #expect(store.getAll().map(\.typedID.rawValue) == expected)
    #expect(store.count == expected.count)
  }

  @Test func classEntitiesWork() {
    let alice = Account("alice", name: "Alice")
    let store = EntityStore([alice])
    #expect(store.get(by: "alice") === alice)
    store.modify("alice") { $0.name = "Alicia" }
    #expect(alice.name == "Alicia")
    let replacement = Account("alice", name: "New")
    store.modify("alice") { $0 = replacement }
    #expect(store.get(by: "alice") === replacement)
    #expect(store.delete("alice") === replacement)
  }
}
