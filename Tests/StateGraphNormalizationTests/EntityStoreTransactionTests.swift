import Foundation
import StateGraph
import StateGraphNormalization
import Testing

/// Store mutations are transactions: readers on other threads see the committed state,
/// never a mutation half done; membership always agrees with the entities held.
@Suite("EntityStore transactions")
struct EntityStoreTransactionTests {
  struct Failure: Error {}

  /// A batch adds id x and pauses; another thread adds x again with another entity
  /// (replacing the batch's); the batch throws. The slot keeps the other thread's entity,
  /// and the count and `getAll()` agree with it.
  @Test func theCountAgreesWithTheEntitiesAfterARollbackRacingAnotherAdd() {
    let store = EntityStore<Note>()
    let added = DispatchSemaphore(value: 0)
    let replaced = DispatchSemaphore(value: 0)
    let other = Thread {
      _ = added.wait(timeout: .now() + 5)
      store.add(Note("x", "b"))
      replaced.signal()
    }
    other.start()
    #expect(throws: Failure.self) {
      try withGraphBatch {
        store.add(Note("x", "a"))
        added.signal()
        _ = replaced.wait(timeout: .now() + 5)
        throw Failure()
      }
    }
    #expect(store.get(by: "x")?.title == "b")
    #expect(store.getAll().map(\.title) == ["b"])
    #expect(store.count == 1)
    #expect(!store.isEmpty)
  }

  /// A transaction adds x and pauses; another thread adds y and commits; the transaction
  /// commits. Both entities are there and counted.
  @Test func aTransactionAndAnotherThreadsAddBothCount() {
    let store = EntityStore<Note>()
    let count = Computed { _ in store.count }
    #expect(count.wrappedValue == 0)
    withGraphTransaction {
      store.add(Note("x", "a"))
      #expect(store.count == 1)
      let counted = Locked(-1)
      #expect(
        elsewhere(5) {
          store.add(Note("y", "b"))
          counted.withLock { $0 = store.count }
        })
      #expect(counted.withLock { $0 } == 1)  // x is not committed yet
    }
    #expect(store.count == 2)
    #expect(count.wrappedValue == 2)
    #expect(Set(store.getAll().map(\.title)) == ["a", "b"])
  }

  /// Upstream pins that a read waits for a coordinated mutation in progress. Here a read
  /// never waits: it returns the committed state, which no mutation is half way through;
  /// once the mutation returns, readers see all of it.
  @Test func aReadDuringACoordinatedMutationSeesTheCommittedState() {
    let coordinator = EntityStoreCoordinator()
    let store = EntityStore<Note>(entities: ["1": Note("1", "one")], coordinator: coordinator)
    let other = EntityStore<Note>(entities: ["2": Note("2", "two")], coordinator: coordinator)
    let titles = Computed { _ in store.getAll().map(\.title) + [other.get(by: "2")?.title ?? "-"] }
    #expect(titles.wrappedValue == ["one", "two"])
    let started = DispatchSemaphore(value: 0)
    let finish = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    let mutation = Thread {
      store.updateOrCreate(id: "1") { note in
        note.title = "uno"
        store.add(Note("3", "three"))
        other.add(Note("2", "dos"))
        started.signal()
        _ = finish.wait(timeout: .now() + 5)
      } create: {
        Note("1", "?")
      }
      finished.signal()
    }
    mutation.start()
    #expect(started.wait(timeout: .now() + 5) == .success)
    let read = Locked<([String], String?, Int)>(([], nil, -1))
    #expect(
      elsewhere(5) {  // does not wait for the mutation
        read.withLock { $0 = (titles.wrappedValue, store.get(by: "1")?.title, store.count) }
      })
    #expect(read.withLock { $0.0 } == ["one", "two"])
    #expect(read.withLock { $0.1 } == "one")
    #expect(read.withLock { $0.2 } == 1)
    finish.signal()
    #expect(finished.wait(timeout: .now() + 5) == .success)
    #expect(titles.wrappedValue == ["uno", "three", "dos"])
    #expect(store.count == 2)
  }

  /// A throwing `modify` inside a transaction leaves nothing; the count stays exact.
  @Test func aDiscardedTransactionLeavesTheStoreAsItWas() {
    let store = EntityStore<Note>([Note("1", "one")])
    #expect(throws: Failure.self) {
      try withGraphTransaction {
        store.add(Note("2", "two"))
        store.delete("1")
        #expect(store.getAll().map(\.title) == ["two"])
        throw Failure()
      }
    }
    #expect(store.getAll().map(\.title) == ["one"])
    #expect(store.count == 1)
    #expect(store.get(by: "2") == nil)
  }
}

/// Runs `body` on a thread of its own and waits for it at most `seconds`: false when it
/// did not finish in time.
private func elsewhere(_ seconds: Int, _ body: @escaping @Sendable () -> Void) -> Bool {
  let done = DispatchSemaphore(value: 0)
  Thread {
    body()
    done.signal()
  }.start()
  return done.wait(timeout: .now() + .seconds(seconds)) == .success
}
