import Observation
import StateGraphNormalization
import Testing

/// Which reads depend on what: exact recompute counts.
@Suite("EntityStore reactivity")
struct EntityStoreReactivityTests {
  @Test func getByIDDependsOnThatIDAlone() {
    let store = EntityStore([Note("a", "A"), Note("b", "B")])
    let runs = RunCounter()
    let title = Computed { _ in runs.count("a", store.get(by: "a")?.title) }
    #expect(title.wrappedValue == "A")
    #expect(runs["a"] == 1)

    store.add(Note("c", "C"))
    store.update(Note("b", "B2"))
    store.modify("b") { $0.pinned = true }
    store["c"] = nil
    store.delete("b")
    #expect(title.wrappedValue == "A")
    #expect(runs["a"] == 1)

    store.update(Note("a", "A2"))
    #expect(title.wrappedValue == "A2")
    #expect(runs["a"] == 2)

    store.modify("a") { $0.title = "A3" }
    #expect(title.wrappedValue == "A3")
    #expect(runs["a"] == 3)

    store["a"] = Note("a", "A4")
    #expect(title.wrappedValue == "A4")
    #expect(runs["a"] == 4)

    store.delete("a")
    #expect(title.wrappedValue == nil)
    #expect(runs["a"] == 5)

    store.add(Note("a", "A5"))
    #expect(title.wrappedValue == "A5")
    #expect(runs["a"] == 6)
  }

  @Test func oneChangeAmongManyReadersRunsOneReader() {
    let size = 10_000
    let store = EntityStore((0..<size).map { Reading(typedID: .init($0), value: 0) })
    let runs = RunCounter()
    let readers = (0..<size).map { index in
      Computed { _ in runs.count("reader", store.get(by: .init(index))?.value) }
    }
    for reader in readers { _ = reader.wrappedValue }
    #expect(runs["reader"] == size)

    store.modify(4_242) { $0.value = 1 }
    store.add(Reading(typedID: .init(size), value: 0))  // a new ID nobody reads
    for reader in readers { _ = reader.wrappedValue }
    #expect(runs["reader"] == size + 1)
    #expect(readers[4_242].wrappedValue == 1)
  }

  @Test func writingAnEqualValueNotifiesNobody() {
    let store = EntityStore([Note("a", "A")])
    let runs = RunCounter()
    let note = Computed { _ in runs.count("a", store.get(by: "a")) }
    let all = Computed { _ in runs.count("all", store.getAll()) }
    _ = (note.wrappedValue, all.wrappedValue)

    store.add(Note("a", "A"))
    store.update(Note("a", "A"))
    store.modify("a") { $0.title = "A" }
    store["a"] = Note("a", "A")
    _ = (note.wrappedValue, all.wrappedValue)
    #expect(runs["a"] == 1)
    #expect(runs["all"] == 1)
  }

  @Test func nonEquatableStructsAlwaysCountAsChanged() {
    let store = EntityStore([Reading(typedID: 1, value: 20)])
    let runs = RunCounter()
    let value = Computed { _ in runs.count("1", store.get(by: 1)?.value) }
    _ = value.wrappedValue
    store.update(Reading(typedID: 1, value: 20))
    #expect(value.wrappedValue == 20)
    #expect(runs["1"] == 2)
  }

  @Test func anAbsentIDIsTrackedUntilItArrives() {
    let store = EntityStore<Note>()
    let runs = RunCounter()
    let later = Computed { _ in runs.count("x", store.get(by: "x")?.title) }
    let present = Computed { _ in runs.count("contains", store.contains("x")) }
    #expect(later.wrappedValue == nil)
    #expect(present.wrappedValue == false)

    store.add([Note("y", "Y"), Note("z", "Z")])
    store.delete("y")
    #expect(later.wrappedValue == nil)
    #expect(present.wrappedValue == false)
    #expect(runs["x"] == 1)
    #expect(runs["contains"] == 1)

    store.add(Note("x", "X"))
    #expect(later.wrappedValue == "X")
    #expect(present.wrappedValue == true)
    #expect(runs["x"] == 2)
    #expect(runs["contains"] == 2)
  }

  @Test func countAndIsEmptyDependOnMembershipOnly() {
    let store = EntityStore<Note>()
    let runs = RunCounter()
    let count = Computed { _ in runs.count("count", store.count) }
    let isEmpty = Computed { _ in runs.count("isEmpty", store.isEmpty) }
    #expect(count.wrappedValue == 0)
    #expect(isEmpty.wrappedValue == true)

    store.add(Note("a", "A"))
    #expect(count.wrappedValue == 1)
    #expect(isEmpty.wrappedValue == false)
    #expect(runs["count"] == 2)
    #expect(runs["isEmpty"] == 2)

    store.modify("a") { $0.title = "A2" }
    store.update(Note("a", "A3"))
    #expect(count.wrappedValue == 1)
    #expect(isEmpty.wrappedValue == false)
    #expect(runs["count"] == 2)
    #expect(runs["isEmpty"] == 2)

    store.add(Note("b", "B"))
    #expect(count.wrappedValue == 2)
    #expect(isEmpty.wrappedValue == false)
    #expect(runs["count"] == 3)
    #expect(runs["isEmpty"] == 3)

    store.delete(["a", "b"])
    #expect(count.wrappedValue == 0)
    #expect(isEmpty.wrappedValue == true)
    #expect(runs["count"] == 4)
    #expect(runs["isEmpty"] == 4)
  }

  @Test func getAllSeesJoinsLeavesAndReplacements() {
    let store = EntityStore([Note("a", "A")])
    let runs = RunCounter()
    let titles = Computed { _ in runs.count("titles", store.getAll().map(\.title)) }
    #expect(titles.wrappedValue == ["A"])

    store.add(Note("b", "B"))
    #expect(titles.wrappedValue == ["A", "B"])
    #expect(runs["titles"] == 2)

    store.modify("a") { $0.title = "A2" }
    #expect(titles.wrappedValue == ["A2", "B"])
    #expect(runs["titles"] == 3)

    store.delete("a")
    #expect(titles.wrappedValue == ["B"])
    #expect(runs["titles"] == 4)

    _ = store.get(by: "zzz")  // reading an absent ID changes nothing
    #expect(titles.wrappedValue == ["B"])
    #expect(runs["titles"] == 4)
  }

  @Test func joinAndLeaveInOneBatchReachesGetAllAndCountStops() {
    let store = EntityStore([Note("a", "A")])
    let runs = RunCounter()
    let count = Computed { _ in runs.count("count", store.count) }
    let ids = Computed { _ in runs.count("ids", store.getAll().map(\.typedID)) }
    _ = (count.wrappedValue, ids.wrappedValue)

    withGraphBatch {
      store.delete("a")
      store.add(Note("b", "B"))
    }
    #expect(count.wrappedValue == 1)
    #expect(ids.wrappedValue == ["b"])
    #expect(runs["ids"] == 2)
    // The count went 1 -> 0 -> 1: its reader runs once, finds 1 again, and
    // its own dependents stop there.
    #expect(runs["count"] == 2)
  }

  @Test func filterOverStructsRunsAgainOnAnyEntityChange() {
    let store = EntityStore([Note("a", "A"), Note("b", "B", pinned: true)])
    let runs = RunCounter()
    let pinned = Computed { _ in runs.count("pinned", store.filter(\.pinned).map(\.typedID)) }
    #expect(pinned.wrappedValue == ["b"])

    store.modify("a") { $0.pinned = true }
    #expect(pinned.wrappedValue == ["a", "b"])
    #expect(runs["pinned"] == 2)

    store.modify("a") { $0.title = "A2" }  // a struct change reaches every filter
    #expect(pinned.wrappedValue == ["a", "b"])
    #expect(runs["pinned"] == 3)
  }

  @Test func classEntityPropertiesReachOnlyTheirReaders() {
    let alice = Account("alice", name: "Alice", balance: 10)
    let bob = Account("bob", name: "Bob", balance: 500)
    let store = EntityStore([alice, bob])
    let runs = RunCounter()
    let aliceName = Computed { _ in runs.count("aliceName", store.get(by: "alice")?.name) }
    let rich = Computed { _ in runs.count("rich", store.filter { $0.balance > 100 }.map(\.name)) }
    let count = Computed { _ in runs.count("count", store.count) }
    _ = (aliceName.wrappedValue, rich.wrappedValue, count.wrappedValue)

    alice.balance = 20  // read by `rich` only
    #expect(aliceName.wrappedValue == "Alice")
    #expect(rich.wrappedValue == ["Bob"])
    #expect(runs["aliceName"] == 1)
    #expect(runs["rich"] == 2)

    bob.name = "Robert"  // read by `rich` (through map)
    #expect(aliceName.wrappedValue == "Alice")
    #expect(rich.wrappedValue == ["Robert"])
    #expect(runs["aliceName"] == 1)
    #expect(runs["rich"] == 3)

    store.modify("alice") { $0.name = "Alicia" }  // same instance: no slot write
    #expect(aliceName.wrappedValue == "Alicia")
    #expect(rich.wrappedValue == ["Robert"])
    #expect(runs["aliceName"] == 2)
    #expect(runs["rich"] == 3)
    #expect(runs["count"] == 1)

    store.add(alice)  // the same instance again
    #expect(aliceName.wrappedValue == "Alicia")
    #expect(runs["aliceName"] == 2)

    let newAlice = Account("alice", name: "Alice II", balance: 1_000)
    store.update(newAlice)  // a new instance: readers of the ID hear of it
    #expect(aliceName.wrappedValue == "Alice II")
    #expect(rich.wrappedValue == ["Alice II", "Robert"])
    #expect(runs["aliceName"] == 3)
    #expect(runs["rich"] == 4)

    alice.name = "Old Alice"  // no longer in the store: nobody reads it
    #expect(aliceName.wrappedValue == "Alice II")
    #expect(rich.wrappedValue == ["Alice II", "Robert"])
    #expect(runs["aliceName"] == 3)
    #expect(runs["rich"] == 4)
    #expect(runs["count"] == 1)
  }

  @Test func theStoreItselfIsAStableGraphStoredValue() {
    final class Model: @unchecked Sendable {
      @GraphStored var notes: EntityStore<Note> = .init()
    }
    let model = Model()
    let runs = RunCounter()
    let count = Computed { _ in runs.count("count", model.notes.count) }
    #expect(count.wrappedValue == 0)
    let sameStore = model.notes
    model.notes.add(Note("a", "A"))
    #expect(model.notes === sameStore)
    #expect(count.wrappedValue == 1)
    #expect(runs["count"] == 2)
  }

  @Test func observationSeesReadsOutsideComputations() {
    let store = EntityStore([Note("a", "A"), Note("b", "B")])
    let fired = Recorder<String>()
    withObservationTracking {
      _ = store.get(by: "a")
    } onChange: {
      fired.append("a")
    }
    withObservationTracking {
      _ = store.count
    } onChange: {
      fired.append("count")
    }
    store.modify("b") { $0.title = "B2" }
    #expect(fired.values.isEmpty)
    store.modify("a") { $0.title = "A2" }
    #expect(fired.values == ["a"])
    store.add(Note("c", "C"))
    #expect(fired.values == ["a", "count"])
  }
}
