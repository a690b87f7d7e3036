import Foundation
import StateGraphNormalization
import Testing

/// `EntityStore.updateOrCreate(id:update:create:)`, `EntityStore(entities:coordinator:)` and
/// `EntityStoreCoordinator`, as swift-state-graph 0.27 spells them.
@Suite("Upstream parity: EntityStore")
struct UpstreamParityEntityStoreTests {
  private enum Refusal: Error { case refused }

  /// A class entity without graph properties: identity is what the tests look at.
  private final class Token: TypedIdentifiable, Sendable {
    typealias TypedIdentifierRawValue = Int
    let typedID: TypedID
    init(_ id: Int) { typedID = .init(id) }
  }

  @Test func createsWhenAbsentThenUpdatesInPlace() {
    let store = EntityStore<Note>()
    let created = store.updateOrCreate(id: "a") { note in
      note.title = "updated"
    } create: {
      Note("a", "created")
    }
    #expect(created == Note("a", "created"))
    let updated = store.updateOrCreate(id: "a") { note in
      note.title = "updated"
    } create: {
      Note("a", "created again")
    }
    #expect(updated == Note("a", "updated"))
    #expect(store.getAll() == [Note("a", "updated")])
  }

  @Test func anUpdateKeepsTheEntitysPlaceInOrder() {
    let store = EntityStore([Note("a", "A"), Note("b", "B")])
    store.updateOrCreate(id: "a") { $0.title = "A2" } create: { Note("a", "new") }
    #expect(store.getAll().map(\.title) == ["A2", "B"])
  }

  @Test func eachCallIsOneChangeForItsReaders() {
    let store = EntityStore<Note>()
    let runs = RunCounter()
    let title = Computed { _ in runs.count("title", store.get(by: "a")?.title) }
    let count = Computed { _ in runs.count("count", store.count) }
    #expect(title.wrappedValue == nil)
    #expect(count.wrappedValue == 0)
    store.updateOrCreate(id: "a") { $0.title = "x" } create: { Note("a", "first") }
    #expect(title.wrappedValue == "first")
    #expect(count.wrappedValue == 1)
    store.updateOrCreate(id: "a") { $0.title = "second" } create: { Note("a", "unused") }
    #expect(title.wrappedValue == "second")
    #expect(count.wrappedValue == 1)
    #expect(runs["title"] == 3)
    #expect(runs["count"] == 2)  // membership did not change on the update
  }

  @Test func aThrowingUpdateLeavesTheStoreAndItsReadersAlone() {
    let store = EntityStore<Note>(entities: ["a": Note("a", "kept")])
    let runs = RunCounter()
    let title = Computed { _ in runs.count("title", store.get(by: "a")?.title) }
    #expect(title.wrappedValue == "kept")
    #expect(throws: Refusal.self) {
      try store.updateOrCreate(id: "a") { (note: inout Note) throws(Refusal) in
        note.title = "changed"
        throw .refused
      } create: { () throws(Refusal) in
        Note("a", "created")
      }
    }
    #expect(store.get(by: "a")?.title == "kept")
    #expect(title.wrappedValue == "kept")
    #expect(runs["title"] == 1)
  }

  @Test func aThrowingCreateAddsNothingAndUndoesItsOtherWrites() {
    let store = EntityStore<Note>()
    let log = EntityStore<Note>()
    #expect(throws: Refusal.self) {
      try store.updateOrCreate(id: "a") { (_: inout Note) throws(Refusal) in
      } create: { () throws(Refusal) -> Note in
        log.add(Note("log", "attempt"))
        throw .refused
      }
    }
    #expect(store.isEmpty)
    #expect(log.isEmpty)  // the batch around the call rolled it back
  }

  @Test func concurrentCallsForOneIDEndWithOneInstance() async {
    let store = EntityStore<Token>()
    let returned = await withTaskGroup(of: Token.self) { group in
      for _ in 0..<100 {
        group.addTask { store.updateOrCreate(id: 1) { _ in } create: { Token(1) } }
      }
      return await group.reduce(into: [Token]()) { $0.append($1) }
    }
    let canonical = store.get(by: 1)
    #expect(store.count == 1)
    #expect(returned.count == 100)
    #expect(returned.allSatisfy { $0 === canonical })
  }

  @Test func theEntitiesInitialiserFillsTheStore() {
    let store = EntityStore<Note>(entities: ["a": Note("a", "A"), "b": Note("b", "B")])
    #expect(store.count == 2)
    #expect(store.get(by: "a") == Note("a", "A"))
    #expect(store.get(by: "b") == Note("b", "B"))
  }

  @Test func storesSharingACoordinatorMutateEachOtherFromInsideAMutation() {
    let coordinator = EntityStoreCoordinator()
    let parents = EntityStore<Note>(coordinator: coordinator)
    let children = EntityStore<Note>(coordinator: coordinator)
    parents.updateOrCreate(id: "p") { _ in } create: {
      children.add(Note("c", "child"))
      return Note("p", "parent")
    }
    #expect(parents.contains("p"))
    #expect(children.contains("c"))
  }

  @Test func laterUpstreamSpellingsOfTheCoordinator() {
    let coordinator = EntityStoreMutationCoordinator()
    let parents = EntityStore<Note>(mutationCoordinator: coordinator)
    let children = EntityStore<Note>(entities: ["c": Note("c", "C")], mutationCoordinator: coordinator)
    parents.updateOrCreate(id: "p") { _ in } create: {
      children.add(Note("d", "D"))  // same coordinator: the recursive lock lets it in
      return Note("p", "P")
    }
    #expect(parents.count == 1)
    #expect(children.count == 2)
  }

  @Test func aSharedCoordinatorHoldsBackTheOtherStoresMutations() {
    let coordinator = EntityStoreCoordinator()
    let first = EntityStore<Note>(coordinator: coordinator)
    let second = EntityStore<Note>(coordinator: coordinator)
    let insideUpdate = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let otherWriteDone = DispatchSemaphore(value: 0)
    first.add(Note("a", "A"))
    Thread {
      first.updateOrCreate(id: "a") { _ in
        insideUpdate.signal()
        release.wait()
      } create: {
        Note("a", "unused")
      }
    }.start()
    insideUpdate.wait()
    Thread {
      second.add(Note("b", "B"))
      otherWriteDone.signal()
    }.start()
    // The other store's write waits for the update; reads do not.
    #expect(otherWriteDone.wait(timeout: .now() + .milliseconds(200)) == .timedOut)
    #expect(second.isEmpty)
    release.signal()
    #expect(otherWriteDone.wait(timeout: .now() + .seconds(5)) == .success)
    #expect(second.contains("b"))
  }

  @Test func storesWithTheirOwnCoordinatorsDoNotWaitForEachOther() {
    let first = EntityStore<Note>()
    let second = EntityStore<Note>()
    let insideUpdate = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let otherWriteDone = DispatchSemaphore(value: 0)
    Thread {
      first.updateOrCreate(id: "a") { _ in } create: {
        insideUpdate.signal()
        release.wait()
        return Note("a", "A")
      }
    }.start()
    insideUpdate.wait()
    Thread {
      second.add(Note("b", "B"))
      otherWriteDone.signal()
    }.start()
    #expect(otherWriteDone.wait(timeout: .now() + .seconds(5)) == .success)
    release.signal()
  }
}

@Suite("Upstream parity: TypedIdentifier.raw")
struct UpstreamParityTypedIdentifierTests {
  @Test func rawIsTheRawValue() {
    let id: Note.TypedID = "user123"
    #expect(id.raw == "user123")
    #expect(id.raw == id.rawValue)
  }
}
