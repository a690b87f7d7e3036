import Foundation
import StateGraph
import Testing

@Suite("Storage: concurrent writers")
struct StorageConcurrencyTests {
  /// Tasks write through two nodes on one key, and through UserDefaults directly; once
  /// the writes stop, every node, a computed over them and the key agree.
  @Test func writersFromSeveralTasksEndConsistent() async {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let first = Stored(wrappedValue: -1, backed: suite.backing("value"))
    let second = Stored(wrappedValue: -1, backed: suite.backing("value"))
    let sum = Computed { _ in first.wrappedValue + second.wrappedValue }
    let suiteName = suite.name

    await withTaskGroup(of: Void.self) { group in
      for task in 0..<8 {
        group.addTask {
          let node = task.isMultiple(of: 2) ? first : second
          for step in 0..<250 {
            node.wrappedValue = task * 1000 + step
            _ = sum.wrappedValue  // readers race the writers
          }
        }
      }
    }
    let stored = suite.defaults.integer(forKey: "value")
    #expect(stored % 1000 == 249)  // some task's last write
    #expect(first.wrappedValue == stored)
    #expect(second.wrappedValue == stored)
    #expect(sum.wrappedValue == 2 * stored)
    #expect(Stored(wrappedValue: -1, backed: suite.backing("value")).wrappedValue == stored)

    // Outside writers join in; the nodes settle on what the key holds last.
    await withTaskGroup(of: Void.self) { group in
      for task in 0..<4 {
        group.addTask {
          let defaults = UserDefaults(suiteName: suiteName)!
          for step in 0..<50 {
            if task.isMultiple(of: 2) {
              defaults.set(10_000 + task * 1000 + step, forKey: "value")
            } else {
              first.wrappedValue = 10_000 + task * 1000 + step
            }
          }
        }
      }
    }
    let settled = await eventually {
      let stored = UserDefaults(suiteName: suiteName)!.integer(forKey: "value")
      return first.wrappedValue == stored && second.wrappedValue == stored
    }
    #expect(settled)
    #expect(sum.wrappedValue == 2 * suite.defaults.integer(forKey: "value"))
  }
}
