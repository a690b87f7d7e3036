import Foundation
import StateGraph
import Testing

/// A rolled-back write leaves the place as it was, for both spellings, and a rollback that
/// races another thread's write undoes only its own write: the node and its place end on
/// the same value.
@Suite("Storage: rollbacks")
struct StorageRollbackTests {
  struct Cancelled: Error {}

  private func announceChange(of store: UserDefaults) {
    NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: store)
  }

  @Test func aRolledBackGraphUserDefaultWriteLeavesTheKeyAsItWas() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let store = suite.defaults
    let theme = GraphUserDefault(wrappedValue: "light", "theme", store: store)
    let size = GraphUserDefault(wrappedValue: 12, "size", store: store)
    size.wrappedValue = 14
    let label = Computed { _ in "\(theme.wrappedValue) \(size.wrappedValue)" }
    let seen = Recorder<String>()
    let subscription = withGraphTracking { label.onChange { seen.append($0) } }

    #expect(throws: Cancelled.self) {
      try withGraphBatch {
        theme.wrappedValue = "dark"
        size.wrappedValue = 16
        throw Cancelled()
      }
    }
    #expect(theme.wrappedValue == "light")
    #expect(size.wrappedValue == 14)
    #expect(store.object(forKey: "theme") == nil)  // held nothing before: removed again
    #expect(store.integer(forKey: "size") == 14)

    // Reading the key again (a change notification, a fresh property) finds the old values.
    announceChange(of: store)
    #expect(theme.wrappedValue == "light")
    #expect(size.wrappedValue == 14)
    #expect(GraphUserDefault(wrappedValue: "light", "theme", store: store).wrappedValue == "light")
    #expect(GraphUserDefault(wrappedValue: 12, "size", store: store).wrappedValue == 14)
    #expect(seen.values == ["light 14"])  // nobody heard of the rolled-back values
    _ = subscription
  }

  @Test func aRolledBackGraphUserDefaultWriteIsNotFoundByPolling() async {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let theme = GraphUserDefault(wrappedValue: "light", "theme", store: suite.defaults)
    let seen = Recorder<String>()
    let label = Computed { _ in theme.wrappedValue }
    let subscription = withGraphTracking { label.onChange { seen.append($0) } }
    #expect(throws: Cancelled.self) {
      try withGraphBatch {
        theme.wrappedValue = "dark"
        throw Cancelled()
      }
    }
    // Three polling passes on Linux (a quarter of a second each).
    try? await Task.sleep(for: .milliseconds(800))
    #expect(theme.wrappedValue == "light")
    #expect(seen.values == ["light"])
    _ = subscription
  }

  /// Thread A's batch writes 1; thread B writes 2 and is held inside its save once the
  /// place holds 2; A then throws. B's write came after A's, so it stays: on the node, in
  /// the place, and for a node made afterwards.
  @Test func aRollbackRacingAnotherThreadsWriteKeepsNodeAndPlaceTogether() {
    let place = GatedBacking()
    let node = Stored(wrappedValue: 0, backed: .custom(place))
    let aWrote = DispatchSemaphore(value: 0)
    let aMayThrow = DispatchSemaphore(value: 0)
    let rolledBack = Recorder<Bool>()
    let a = startThread {
      do {
        try withGraphBatch {
          node.wrappedValue = 1
          aWrote.signal()
          _ = aMayThrow.wait(seconds: 20)
          throw Cancelled()
        }
      } catch {
        rolledBack.append(true)
      }
    }
    #expect(aWrote.wait(seconds: 20))
    #expect(place.gate.value == .integer(1))
    place.gate.holdNextSave()
    let b = startThread { node.wrappedValue = 2 }
    #expect(place.gate.held.wait(seconds: 20))  // the place holds 2; B has not returned
    aMayThrow.signal()
    #expect(a.wait(seconds: 20))
    #expect(rolledBack.values == [true])
    place.gate.release.signal()
    #expect(b.wait(seconds: 20))

    #expect(node.wrappedValue == 2)
    #expect(place.gate.value == .integer(2))
    #expect(Stored(wrappedValue: 0, backed: .custom(place)).wrappedValue == 2)
  }

  /// Thread B writes 5 and is held inside its save, its value not yet given to the node;
  /// thread A's batch then writes 1 and throws. The node goes back, and on to B's 5,
  /// which the place holds: not to the 0 it held before A's write, which no longer is
  /// what the place holds.
  @Test func aRollbackOverAWriteStillBeingPublishedEndsOnThatWrite() {
    let place = GatedBacking()
    let node = Stored(wrappedValue: 0, backed: .custom(place))
    place.gate.holdNextSave()
    let b = startThread { node.wrappedValue = 5 }
    #expect(place.gate.held.wait(seconds: 20))  // the place holds 5; the node still 0
    #expect(node.wrappedValue == 0)
    let a = startThread {
      try? withGraphBatch {
        node.wrappedValue = 1
        throw Cancelled()
      }
    }
    #expect(a.wait(seconds: 20))
    #expect(node.wrappedValue == 5)
    place.gate.release.signal()
    #expect(b.wait(seconds: 20))
    #expect(node.wrappedValue == 5)
    #expect(place.gate.value == .integer(5))
    #expect(Stored(wrappedValue: 0, backed: .custom(place)).wrappedValue == 5)
  }

  /// Two nodes on one place written in one batch: the rollback undoes both writes, in
  /// the nodes and in the place.
  @Test func aRollbackUndoesTheWritesOfTwoNodesOnOnePlace() {
    let place = GatedBacking()
    let first = Stored(wrappedValue: 0, backed: .custom(place))
    let second = Stored(wrappedValue: 0, backed: .custom(place))
    first.wrappedValue = 3
    #expect(throws: Cancelled.self) {
      try withGraphBatch {
        first.wrappedValue = 1
        second.wrappedValue = 2
        first.wrappedValue = 4
        throw Cancelled()
      }
    }
    #expect(first.wrappedValue == 3)
    #expect(second.wrappedValue == 3)
    #expect(place.gate.value == .integer(3))
    #expect(Stored(wrappedValue: 0, backed: .custom(place)).wrappedValue == 3)
    // Consecutive writes of one node, and a nested batch that throws after one that
    // committed.
    #expect(throws: Cancelled.self) {
      try withGraphBatch {
        first.wrappedValue = 5
        first.wrappedValue = 6
        withGraphBatch { second.wrappedValue = 7 }
        try? withGraphBatch {
          first.wrappedValue = 8
          throw Cancelled()
        }
        #expect(first.wrappedValue == 7)
        #expect(place.gate.value == .integer(7))
        throw Cancelled()
      }
    }
    #expect(first.wrappedValue == 3)
    #expect(second.wrappedValue == 3)
    #expect(place.gate.value == .integer(3))
  }

  /// The same race with the rollback first: A's undo is saved while B writes. Everyone
  /// ends on B's value, and a later write is followed as usual.
  @Test func aWriteAfterARollbackIsKeptEverywhere() {
    let place = GatedBacking()
    let node = Stored(wrappedValue: 0, backed: .custom(place))
    let mirror = Stored(wrappedValue: 0, backed: .custom(place))
    let b = DispatchSemaphore(value: 0)
    let a = startThread {
      try? withGraphBatch {
        node.wrappedValue = 1
        place.gate.holdNextSave()  // the rollback's save of the old content stops
        throw Cancelled()
      }
    }
    #expect(place.gate.held.wait(seconds: 20))
    let writer = startThread {
      mirror.wrappedValue = 2
      b.signal()
    }
    #expect(b.wait(seconds: 20))  // a writer never waits for another thread's save
    place.gate.release.signal()
    #expect(a.wait(seconds: 20))
    #expect(writer.wait(seconds: 20))
    #expect(node.wrappedValue == 2)
    #expect(mirror.wrappedValue == 2)
    #expect(place.gate.value == .integer(2))
    #expect(Stored(wrappedValue: 0, backed: .custom(place)).wrappedValue == 2)
  }

  @Test func aRolledBackWriteOfANestedBatchOnlyUndoesItsOwnSave() {
    let place = GatedBacking()
    let node = Stored(wrappedValue: "a", backed: .custom(place))
    withGraphBatch {
      node.wrappedValue = "b"
      #expect(throws: Cancelled.self) {
        try withGraphBatch {
          node.wrappedValue = "c"
          node.wrappedValue = "d"
          throw Cancelled()
        }
      }
      #expect(node.wrappedValue == "b")
      #expect(place.gate.value == .string("b"))
    }
    #expect(node.wrappedValue == "b")
    #expect(place.gate.value == .string("b"))
  }

  @Test func aCommittedTransactionSavesAndAThrowingOneLeavesTheKey() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let theme = GraphUserDefault(wrappedValue: "light", "theme", store: suite.defaults)
    let volume = Stored(wrappedValue: 0.5, backed: suite.backing("volume"))
    withGraphTransaction {
      theme.wrappedValue = "dark"
      volume.wrappedValue = 0.8
    }
    #expect(suite.defaults.string(forKey: "theme") == "dark")
    #expect(suite.defaults.double(forKey: "volume") == 0.8)
    #expect(throws: Cancelled.self) {
      try withGraphTransaction { () throws(Cancelled) in
        theme.wrappedValue = "sepia"
        volume.wrappedValue = 0.1
        throw Cancelled()
      }
    }
    #expect(theme.wrappedValue == "dark")
    #expect(volume.wrappedValue == 0.8)
    #expect(suite.defaults.string(forKey: "theme") == "dark")
    #expect(suite.defaults.double(forKey: "volume") == 0.8)
  }
}

/// A `@GraphUserDefault` setter returns once its value is what every reader of the key
/// reads: other properties on the key, and computations over them.
@Suite("Storage: publication of a setter")
struct StoragePublicationTests {
  /// As swift-state-graph's test of the same name: another property's publication, from
  /// a change notification on another thread, is held inside its `onDidSet`; a setter of
  /// another key meanwhile publishes its own value before it returns. (It does not wait
  /// for the held publication: writers of different keys are not ordered.)
  @Test func concurrentSetterWaitsForItsSynchronousPublication() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let store = suite.defaults
    let blocking = GraphUserDefault(wrappedValue: "initial", "blocking", store: store)
    let concurrent = GraphUserDefault(wrappedValue: "initial", "concurrent", store: store)
    let reader = GraphUserDefault(wrappedValue: "initial", "concurrent", store: store)
    let derived = Computed { _ in "read \(reader.wrappedValue)" }
    #expect(derived.wrappedValue == "read initial")

    let publicationStarted = DispatchSemaphore(value: 0)
    let resumePublication = DispatchSemaphore(value: 0)
    blocking.onDidSet { _, _ in
      publicationStarted.signal()
      _ = resumePublication.wait(seconds: 20)
    }
    let shared = SharedDefaults(store)
    let notification = startThread {
      shared.defaults.set("external", forKey: "blocking")
      NotificationCenter.default.post(
        name: UserDefaults.didChangeNotification, object: shared.defaults)
    }
    #expect(publicationStarted.wait(seconds: 20))

    let seenOnReturn = Recorder<String>()
    let setter = startThread {
      concurrent.wrappedValue = "updated"
      seenOnReturn.append(concurrent.wrappedValue)
      seenOnReturn.append(reader.wrappedValue)
      seenOnReturn.append(derived.wrappedValue)
    }
    #expect(setter.wait(seconds: 10))
    #expect(seenOnReturn.values == ["updated", "updated", "read updated"])
    resumePublication.signal()
    #expect(notification.wait(seconds: 20))
    #expect(blocking.wrappedValue == "external")
  }

  @Test func aSetterReachesEveryPropertyAndNodeOnItsKeyBeforeReturning() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let first = GraphUserDefault(wrappedValue: 0, "count", suiteName: suite.name)
    let second = GraphUserDefault(wrappedValue: 0, "count", suiteName: suite.name)
    let node = Stored(wrappedValue: 0, backed: suite.backing("count"))
    let seen = Recorder<Int>()
    second.onDidSet { _, newValue in seen.append(newValue) }
    for value in 1...20 {
      first.wrappedValue = value
      #expect(second.wrappedValue == value)
      #expect(node.wrappedValue == value)
    }
    node.wrappedValue = 21
    #expect(first.wrappedValue == 21)
    #expect(second.wrappedValue == 21)
    #expect(seen.values == Array(1...21))
  }
}
