import Foundation
import Observation
import StateGraph
import Testing

/// A persisted node follows its key: writes through other nodes arrive at once, writes
/// through UserDefaults shortly after (a notification on Apple platforms, polling on
/// Linux), and reach dependents exactly as in-memory changes do.
@Suite("Storage: following the key")
struct StorageFollowTests {
  @Test func anOutsideWriteReachesDependentsOnce() async {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let name = Stored(wrappedValue: "", backed: suite.backing("userName"))
    let runs = Counter()
    let greeting = Computed { _ in
      runs.run(name.wrappedValue.isEmpty ? "Welcome!" : "Welcome, \(name.wrappedValue)!")
    }
    let seen = Recorder<String>()
    let subscription = withGraphTracking {
      greeting.onChange { seen.append($0) }
    }
    #expect(seen.values == ["Welcome!"])
    #expect(runs.value == 1)

    suite.defaults.set("Ada", forKey: "userName")
    #expect(await eventually { seen.count == 2 })
    #expect(seen.values == ["Welcome!", "Welcome, Ada!"])
    #expect(greeting.wrappedValue == "Welcome, Ada!")
    #expect(runs.value == 2)

    // Writing what the key already holds changes nothing downstream.
    suite.defaults.set("Ada", forKey: "userName")
    try? await Task.sleep(for: .milliseconds(600))  // more than two polling passes
    #expect(runs.value == 2)
    #expect(seen.values == ["Welcome!", "Welcome, Ada!"])

    // Removing the key brings back the declared value.
    suite.defaults.removeObject(forKey: "userName")
    #expect(await eventually { seen.count == 3 })
    #expect(seen.values.last == "Welcome!")
    #expect(runs.value == 3)
    _ = subscription
  }

  @Test func anOutsideWriteIsSeenByObservation() async {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let enabled = Stored(wrappedValue: true, backed: suite.backing("notificationsEnabled"))
    let fired = Counter()
    withObservationTracking {
      _ = enabled.wrappedValue
    } onChange: {
      fired.tick()
    }
    suite.defaults.set(false, forKey: "notificationsEnabled")
    #expect(await eventually { fired.value == 1 })
    #expect(enabled.wrappedValue == false)
  }

  @Test func twoNodesOnOneKeyFollowEachOtherAtOnce() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let first = Stored(wrappedValue: 0, backed: suite.backing("count"))
    let second = Stored(wrappedValue: 0, backed: suite.backing("count"))
    let runs = Counter()
    let doubled = Computed { _ in runs.run(second.wrappedValue * 2) }
    #expect(doubled.wrappedValue == 0)

    first.wrappedValue = 5
    #expect(second.wrappedValue == 5)  // synchronously: no polling involved
    #expect(doubled.wrappedValue == 10)
    #expect(runs.value == 2)

    second.wrappedValue = 6
    #expect(first.wrappedValue == 6)
    #expect(doubled.wrappedValue == 12)
    #expect(runs.value == 3)

    first.wrappedValue = 6  // equal: nobody recomputes
    #expect(doubled.wrappedValue == 12)
    #expect(runs.value == 3)
    #expect(suite.defaults.integer(forKey: "count") == 6)
  }

  @Test func nodesOfDifferentTypesShareAKey() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let integer = Stored(wrappedValue: 0, backed: suite.backing("size"))
    let real = Stored(wrappedValue: 0.0, backed: suite.backing("size"))
    integer.wrappedValue = 3
    #expect(real.wrappedValue == 3.0)
    real.wrappedValue = 4.5  // not a whole number: the Int node reads its default
    #expect(integer.wrappedValue == 0)
    #expect(suite.stored("size") == .real(4.5))
  }

  @Test func aNodeMadeLaterStartsWithTheCurrentValue() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let first = Stored(wrappedValue: "a", backed: suite.backing("letter"))
    first.wrappedValue = "b"
    #expect(Stored(wrappedValue: "a", backed: suite.backing("letter")).wrappedValue == "b")
    // An outside write not yet picked up by polling is read when a node joins, and
    // reaches the nodes already there.
    suite.defaults.set("c", forKey: "letter")
    #expect(Stored(wrappedValue: "a", backed: suite.backing("letter")).wrappedValue == "c")
    #expect(first.wrappedValue == "c")
  }

  @Test func suitesAreSeparate() {
    let one = ScratchSuite()
    let two = ScratchSuite()
    let key = "stategraph.tests.suites.\(UUID().uuidString)"
    defer {
      one.remove()
      two.remove()
      UserDefaults.standard.removeObject(forKey: key)
    }
    let inOne = Stored(wrappedValue: "", backed: .userDefaults(suite: one.name, key: key))
    let inTwo = Stored(wrappedValue: "", backed: .userDefaults(suite: two.name, key: key))
    let inStandard = Stored(wrappedValue: "", backed: .userDefaults(key: key))
    inOne.wrappedValue = "one"
    inTwo.wrappedValue = "two"
    inStandard.wrappedValue = "standard"
    #expect(
      [inOne.wrappedValue, inTwo.wrappedValue, inStandard.wrappedValue] == [
        "one", "two", "standard",
      ])
    #expect(one.defaults.string(forKey: key) == "one")
    #expect(two.defaults.string(forKey: key) == "two")
    #expect(UserDefaults.standard.string(forKey: key) == "standard")
  }

  @Test func aRolledBackBatchPutsTheStoredValueBack() {
    struct Cancelled: Error {}
    let suite = ScratchSuite()
    defer { suite.remove() }
    let theme = Stored(wrappedValue: Theme.light, backed: suite.backing("theme"))
    let mirror = Stored(wrappedValue: Theme.light, backed: suite.backing("theme"))
    let fresh = Stored<String?>(wrappedValue: nil, backed: suite.backing("fresh"))
    theme.wrappedValue = .dark
    let seen = Recorder<Theme>()
    let subscription = withGraphTracking { mirror.onChange { seen.append($0) } }

    #expect(throws: Cancelled.self) {
      try withGraphBatch {
        theme.wrappedValue = .light
        fresh.wrappedValue = "new"
        #expect(suite.stored("theme") == .string("light"))  // saved at once, even in a batch
        throw Cancelled()
      }
    }
    #expect(theme.wrappedValue == .dark)
    #expect(mirror.wrappedValue == .dark)
    #expect(suite.stored("theme") == .string("dark"))
    #expect(fresh.wrappedValue == nil)
    #expect(suite.stored("fresh") == nil)  // held nothing before: removed again
    #expect(seen.values == [.dark])
    _ = subscription
  }

  @Test func graphPropertiesPersistThroughTheMacro() {
    defer { PersistedCounter.suite.remove() }
    let model = PersistedCounter()
    #expect(model.count == 0 && model.isEven)
    model.count = 3
    #expect(model.isEven == false)
    #expect(PersistedCounter.suite.defaults.integer(forKey: "count") == 3)

    let other = PersistedCounter()  // another object on the same key
    #expect(other.count == 3)
    other.count = 4
    #expect(model.count == 4 && model.isEven)
    model.label = "four"
    #expect(PersistedCounter.suite.stored("label") == .string("four"))
    model.label = nil
    #expect(PersistedCounter.suite.stored("label") == nil)
  }
}

final class PersistedCounter {
  static let suite = ScratchSuite("PersistedCounter")

  @GraphStored(backed: .userDefaults(suite: PersistedCounter.suite.name, key: "count"))
  var count: Int = 0

  @GraphStored(backed: .userDefaults(suite: PersistedCounter.suite.name, key: "label"))
  var label: String?

  @GraphComputed
  var isEven: Bool

  init() {
    self.$isEven = .init { [$count] _ in $count.wrappedValue % 2 == 0 }
  }
}
