import StateGraphNormalization
import Testing

/// Many tasks mutating and reading one store. `make test` runs the suites
/// whose name contains "Stress" under the thread sanitizer.
@Suite("EntityStore Concurrency Stress")
struct EntityStoreConcurrencyTests {
  @Test(.timeLimit(.minutes(1)))
  func concurrentAddModifyDeleteOfDisjointIDs() async {
    let store = EntityStore<Reading>()
    let tasks = 8
    let perTask = 300
    await withTaskGroup(of: Void.self) { group in
      for task in 0..<tasks {
        group.addTask {
          let ids = (0..<perTask).map { Reading.TypedID(task * perTask + $0) }
          for id in ids { store.add(Reading(typedID: id, value: 0)) }
          for id in ids { store.modify(id) { $0.value += 1 } }
          for id in ids { store.modify(id) { $0.value += 1 } }
          for id in ids where id.rawValue % 2 == 1 { store.delete(id) }
        }
      }
    }
    let survivors = store.getAll()
    #expect(store.count == tasks * perTask / 2)
    #expect(survivors.count == tasks * perTask / 2)
    #expect(survivors.allSatisfy { $0.value == 2 && $0.typedID.rawValue % 2 == 0 })
    #expect(Set(survivors.map(\.typedID)).count == survivors.count)
  }

  @Test(.timeLimit(.minutes(1)))
  func concurrentModifiesOfOneEntityAreNotLost() async {
    let store = EntityStore([Reading(typedID: 1, value: 0)])
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          for _ in 0..<1_000 { store.modify(1) { $0.value += 1 } }
        }
      }
    }
    #expect(store.get(by: 1)?.value == 8_000)
  }

  @Test(.timeLimit(.minutes(1)))
  func readersStayConsistentWhileWritersRun() async {
    let store = EntityStore<Reading>()
    let total = Computed { _ in store.getAll().reduce(0) { $0 + $1.value } }
    let idsAreUnique = Computed { _ in
      let ids = store.getAll().map(\.typedID)
      return Set(ids).count == ids.count
    }
    let one = Computed { _ in store.get(by: 0)?.value ?? -1 }
    await withTaskGroup(of: Void.self) { group in
      for writer in 0..<4 {
        group.addTask {
          for step in 0..<500 {
            let id = Reading.TypedID(writer * 1_000 + step % 50)
            switch step % 3 {
            case 0: store.add(Reading(typedID: id, value: 1))
            case 1: store.modify(id) { $0.value += 1 }
            default: store.delete(id)
            }
          }
          store.add(Reading(typedID: .init(writer * 1_000 + 999), value: 1))
        }
      }
      for _ in 0..<4 {
        group.addTask {
          for _ in 0..<300 {
            #expect(idsAreUnique.wrappedValue)
            _ = total.wrappedValue
            _ = one.wrappedValue
            let all = store.getAll()
            #expect(all.count <= 200 + 4)
          }
        }
      }
    }
    // No invalidation was lost: cached readers agree with a fresh scan.
    let expected = store.getAll().reduce(0) { $0 + $1.value }
    #expect(total.wrappedValue == expected)
    #expect(idsAreUnique.wrappedValue)
    #expect(one.wrappedValue == (store.get(by: 0)?.value ?? -1))
    #expect(store.count == store.getAll().count)
  }

  @Test(.timeLimit(.minutes(1)))
  func modifyBodiesThatReadTheStoreDoNotDeadlock() async {
    let store = EntityStore((0..<16).map { Reading(typedID: .init($0), value: 0) })
    let sum = Computed { _ in store.getAll().reduce(0) { $0 + $1.value } }
    await withTaskGroup(of: Void.self) { group in
      for task in 0..<8 {
        group.addTask {
          for step in 0..<200 {
            let id = Reading.TypedID((task + step) % 16)
            store.modify(id) { reading in
              // Reads a computation other threads are recomputing, and the store.
              reading.value += sum.wrappedValue >= 0 ? 1 : 0
              _ = store.get(by: .init((step + 1) % 16))
            }
          }
        }
      }
    }
    #expect(sum.wrappedValue == 8 * 200)
  }
}
