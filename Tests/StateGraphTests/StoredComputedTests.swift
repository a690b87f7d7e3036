import Testing

@testable import StateGraph

@Suite("Stored and Computed")
struct StoredComputedTests {
  @Test func storedReadsAndWrites() {
    let counter = Stored(wrappedValue: 0)
    #expect(counter.wrappedValue == 0)
    counter.wrappedValue = 1
    #expect(counter.wrappedValue == 1)
    counter.wrappedValue += 1
    #expect(counter.wrappedValue == 2)
  }

  @Test func computedIsLazyAndCached() {
    let runs = Counter()
    let a = Stored(wrappedValue: 10)
    let b = Stored(wrappedValue: 20)
    let sum = Computed { _ in runs.run(a.wrappedValue + b.wrappedValue) }
    #expect(runs.value == 0)
    #expect(sum.wrappedValue == 30)
    #expect(sum.wrappedValue == 30)
    #expect(runs.value == 1)
    a.wrappedValue = 15
    #expect(runs.value == 1)  // lazy: nothing ran yet
    #expect(sum.wrappedValue == 35)
    #expect(runs.value == 2)
  }

  @Test func writingAnEqualValueChangesNothing() {
    let runs = Counter()
    let a = Stored(wrappedValue: 1)
    let double = Computed { _ in runs.run(a.wrappedValue * 2) }
    _ = double.wrappedValue
    a.wrappedValue = 1
    #expect(double.wrappedValue == 2)
    #expect(runs.value == 1)
  }

  @Test func equalityCutoffStopsPropagation() {
    let parityRuns = Counter()
    let labelRuns = Counter()
    let number = Stored(wrappedValue: 2)
    let isEven = Computed { _ in parityRuns.run(number.wrappedValue % 2 == 0) }
    let label = Computed { _ in labelRuns.run(isEven.wrappedValue ? "even" : "odd") }
    #expect(label.wrappedValue == "even")
    number.wrappedValue = 4
    #expect(label.wrappedValue == "even")
    #expect(parityRuns.value == 2)
    #expect(labelRuns.value == 1)  // cut off: isEven did not change
    number.wrappedValue = 5
    #expect(label.wrappedValue == "odd")
    #expect(labelRuns.value == 2)
  }

  /// An equal value is no change for the graph, but the node keeps the one given or made,
  /// as a plain property would: for a type whose `==` looks at part of it, the newest.
  @Test func anEqualValueIsKeptWithoutNotifying() {
    final class Tagged: Equatable, Sendable {
      let id: Int
      let note: String
      init(_ id: Int, _ note: String) { (self.id, self.note) = (id, note) }
      static func == (lhs: Tagged, rhs: Tagged) -> Bool { lhs.id == rhs.id }
    }
    let runs = Counter()
    let stored = Stored(wrappedValue: Tagged(1, "first"))
    let note = Computed { _ in runs.run(stored.wrappedValue.id) }
    _ = note.wrappedValue
    let second = Tagged(1, "second")
    stored.wrappedValue = second
    #expect(stored.wrappedValue === second)
    _ = note.wrappedValue
    #expect(runs.value == 1)

    let source = Stored(wrappedValue: "a")
    let made = Computed { _ in Tagged(1, source.wrappedValue) }
    let readers = Counter()
    let reader = Computed { _ in readers.run(made.wrappedValue.id) }
    #expect(made.wrappedValue.note == "a")
    _ = reader.wrappedValue
    source.wrappedValue = "b"
    #expect(made.wrappedValue.note == "b")
    _ = reader.wrappedValue
    #expect(readers.value == 1)  // cut off: equal
  }

  /// swift-state-graph's case: a computed model equal by `id` keeps the newest instance,
  /// so a reader of the model's own node, whose node went with the old instance, reads
  /// the new one's.
  @Test func aReaderOfAnEqualModelsNodeFollowsTheNewestModel() {
    final class Model: Equatable, @unchecked Sendable {
      let id: Int
      @GraphStored var count: Int
      init(id: Int, count: Int) {
        self.id = id
        self.count = count
      }
      static func == (lhs: Model, rhs: Model) -> Bool { lhs.id == rhs.id }
    }
    let source = Stored(wrappedValue: 1)
    let model = Computed { _ in Model(id: 1, count: source.wrappedValue) }
    let downstream = Computed { _ in model.wrappedValue.count }
    #expect(downstream.wrappedValue == 1)
    source.wrappedValue = 2
    #expect(downstream.wrappedValue == 2)
    model.wrappedValue.count = 3
    #expect(downstream.wrappedValue == 3)
  }

  /// A node's own `shouldNotify` decides which writes are changes; the node takes every
  /// value written. It replaces the type's `==`, the inline one of `Int` included, and it
  /// decides at a transaction's commit too.
  @Test func shouldNotifyDecidesWhichWritesAreChanges() {
    let comparisons = Locked<[String]>([])
    let temperature = Stored(wrappedValue: 20.0) { old, new in
      comparisons.withLock { $0.append("\(old)->\(new)") }
      return abs(new - old) >= 0.5
    }
    let runs = Counter()
    let rounded = Computed { _ in runs.run(temperature.wrappedValue.rounded()) }
    #expect(rounded.wrappedValue == 20)
    temperature.wrappedValue = 20.2
    #expect(temperature.wrappedValue == 20.2)  // kept
    #expect(rounded.wrappedValue == 20)
    #expect(runs.value == 1)  // not a change
    temperature.wrappedValue = 21
    #expect(rounded.wrappedValue == 21)
    #expect(runs.value == 2)
    withGraphTransaction { temperature.wrappedValue = 21.1 }
    #expect(temperature.wrappedValue == 21.1)
    #expect(rounded.wrappedValue == 21)
    #expect(runs.value == 2)
    #expect(comparisons.withLock { $0 } == ["20.0->20.2", "20.2->21.0", "21.0->21.1"])

    let always = Stored(wrappedValue: 1) { _, _ in true }
    let reads = Counter()
    let copy = Computed { _ in reads.run(always.wrappedValue) }
    _ = copy.wrappedValue
    always.wrappedValue = 1  // equal, but the node says it is a change
    _ = copy.wrappedValue
    #expect(reads.value == 2)
  }

  /// A node's own comparison is user code: it runs with no value lock held, so it may read
  /// nodes, the node itself included; at a transaction's commit it runs before anything is
  /// locked and sees the whole pending commit.
  @Test func shouldNotifyMayReadNodes() {
    final class Box: @unchecked Sendable { var node: Stored<Int>? }
    let other = Stored(wrappedValue: 0)
    let box = Box()
    let seen = Locked<[Int]>([])
    let node = Stored(wrappedValue: 0) { old, new in
      seen.withLock { $0.append(other.wrappedValue * 100 + (box.node?.wrappedValue ?? -1)) }
      return old != new
    }
    box.node = node
    let finished = startThread {
      node.wrappedValue = 1
      withGraphTransaction {
        node.wrappedValue = 2
        other.wrappedValue = 3
      }
    }
    guard finished.wait(seconds: 10) else {
      Issue.record("a comparison that reads nodes blocked its write")
      return  // touch nothing: the blocked thread holds the nodes' locks
    }
    #expect(node.wrappedValue == 2)
    #expect(seen.withLock { $0 } == [0, 302])  // the pending commit: other 3, node 2
  }

  @Test func classValuesCompareByIdentity() {
    final class Box: Sendable {}  // read by computations on any thread
    let runs = Counter()
    let first = Box()
    let stored = Stored(wrappedValue: first)
    let derived = Computed { _ in runs.run(ObjectIdentifier(stored.wrappedValue)) }
    _ = derived.wrappedValue
    stored.wrappedValue = first
    _ = derived.wrappedValue
    #expect(runs.value == 1)
    stored.wrappedValue = Box()
    _ = derived.wrappedValue
    #expect(runs.value == 2)
  }

  @Test func nonEquatableValuesAlwaysPropagate() {
    struct Opaque { var x: Int }
    let runs = Counter()
    let stored = Stored(wrappedValue: Opaque(x: 1))
    let derived = Computed { _ in runs.run(stored.wrappedValue.x) }
    _ = derived.wrappedValue
    stored.wrappedValue = Opaque(x: 1)
    _ = derived.wrappedValue
    #expect(runs.value == 2)
  }

  /// Nine value types made in turn on one thread, more than the few comparators a thread
  /// keeps at hand: each node still compares as its own type does, on this thread and on
  /// another.
  @Test func everyTypeKeepsItsOwnComparison() async {
    struct Point: Equatable, Sendable { var x, y: Int }
    struct Opaque: Sendable { var x: Int }
    final class Box: Sendable {}
    let box = Box()

    /// Runs of a node over a stored `first`, after `again` (equal to `first`, or the same
    /// instance) and then `other` were written.
    func runs<Value: Sendable>(_ first: Value, _ again: Value, _ other: Value) -> Int {
      let runs = Counter()
      let stored = Stored(wrappedValue: first)
      let reader = Computed { _ in runs.run(stored.wrappedValue) }
      _ = reader.wrappedValue
      stored.wrappedValue = again
      _ = reader.wrappedValue
      stored.wrappedValue = other
      _ = reader.wrappedValue
      return runs.value
    }
    func checkAll() -> [Int] {
      (0..<3).flatMap { _ in
        [
          runs(1, 1, 2), runs(true, true, false), runs(1.5, 1.5, 2.5), runs("a", "a", "b"),
          runs(UInt8(1), 1, 2), runs(Point(x: 1, y: 2), Point(x: 1, y: 2), Point(x: 2, y: 2)),
          runs([1, 2], [1, 2], [3]), runs(box, box, Box()), runs(Opaque(x: 1), Opaque(x: 1), Opaque(x: 1)),
        ]
      }
    }
    let expected = Array(repeating: [2, 2, 2, 2, 2, 2, 2, 2, 3], count: 3).flatMap { $0 }
    #expect(checkAll() == expected)
    #expect(await Task.detached { checkAll() }.value == expected)
  }

  @Test func diamondRunsEachNodeOncePerChange() {
    let leftRuns = Counter()
    let rightRuns = Counter()
    let bottomRuns = Counter()
    let top = Stored(wrappedValue: 1)
    let left = Computed { _ in leftRuns.run(top.wrappedValue + 1) }
    let right = Computed { _ in rightRuns.run(top.wrappedValue * 10) }
    let seen = Recorder<(Int, Int)>()
    let bottom = Computed { _ in
      let pair = (left.wrappedValue, right.wrappedValue)
      seen.append(pair)
      return bottomRuns.run(pair.0 + pair.1)
    }
    #expect(bottom.wrappedValue == 12)
    top.wrappedValue = 2
    #expect(bottom.wrappedValue == 23)
    #expect((leftRuns.value, rightRuns.value, bottomRuns.value) == (2, 2, 2))
    // never a glitch: each pair seen belongs to one value of `top`
    for (l, r) in seen.values { #expect(r == (l - 1) * 10) }
  }

  @Test func dynamicDependenciesDropUnreadSources() {
    let runs = Counter()
    let useLeft = Stored(wrappedValue: true)
    let left = Stored(wrappedValue: "left")
    let right = Stored(wrappedValue: "right")
    let pick = Computed { _ in runs.run(useLeft.wrappedValue ? left.wrappedValue : right.wrappedValue) }
    #expect(pick.wrappedValue == "left")
    useLeft.wrappedValue = false
    #expect(pick.wrappedValue == "right")
    #expect(runs.value == 2)
    left.wrappedValue = "changed"  // no longer a dependency
    #expect(pick.wrappedValue == "right")
    #expect(runs.value == 2)
    right.wrappedValue = "new"
    #expect(pick.wrappedValue == "new")
    #expect(runs.value == 3)
  }

  @Test func withoutTrackingDoesNotRecordDependencies() {
    let runs = Counter()
    let tracked = Stored(wrappedValue: 1)
    let untracked = Stored(wrappedValue: 100)
    let total = Computed { context in
      runs.run(tracked.wrappedValue + context.withoutTracking { untracked.wrappedValue })
    }
    #expect(total.wrappedValue == 101)
    untracked.wrappedValue = 200
    #expect(total.wrappedValue == 101)
    #expect(runs.value == 1)
    tracked.wrappedValue = 2
    #expect(total.wrappedValue == 202)
  }

  @Test func computedWithInitialValueCutsOffAnEqualFirstResult() {
    let stored = Stored(wrappedValue: 10)
    let computed = Computed(wrappedValue: 0) { _ in stored.wrappedValue * 2 }
    #expect(computed.wrappedValue == 20)
    stored.wrappedValue = 20
    #expect(computed.wrappedValue == 40)
  }

  /// A constant node, as a placeholder that `init` replaces (swift-state-graph's pattern):
  /// capturing a stored value snapshots it; capturing the node and reading it inside the
  /// rule depends on it.
  @Test func aConstantNodeIsAPlaceholderThatInitReplaces() {
    final class Model {
      @GraphStored var names: [String] = ["calm"]
      var snapshot = Computed<String>(constant: "")
      var live = Computed<String>(constant: "")

      init() {
        snapshot = .init { [names = self.names] _ in names.joined(separator: ",") }
        live = .init { [names = self.$names] _ in names.wrappedValue.joined(separator: ",") }
      }
    }
    let constant = Computed<String>(constant: "fixed")
    #expect(constant.wrappedValue == "fixed")
    #expect(constant.wrappedValue == "fixed")

    let model = Model()
    #expect(model.snapshot.wrappedValue == "calm")
    #expect(model.live.wrappedValue == "calm")
    model.names = ["active"]
    #expect(model.snapshot.wrappedValue == "calm")
    #expect(model.live.wrappedValue == "active")
  }

  @Test func mapDerivesANode() {
    let celsius = Stored(wrappedValue: 100.0)
    let fahrenheit = celsius.map { _, c in c * 9 / 5 + 32 }
    let label = fahrenheit.map { _, f in "\(Int(f))°F" }
    #expect(label.wrappedValue == "212°F")
    celsius.wrappedValue = 0
    #expect(label.wrappedValue == "32°F")
  }

  @Test func namesAreKept() {
    let stored = Stored(name: "count", wrappedValue: 0)
    let computed = Computed(name: "double") { _ in stored.wrappedValue * 2 }
    #expect(stored.name == "count")
    #expect(computed.name == "double")
  }
}
