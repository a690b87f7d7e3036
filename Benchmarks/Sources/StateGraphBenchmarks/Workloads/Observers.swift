import Dispatch
import StateGraph

// Observer delivery: `onChange` handlers run once per write, and once per
// batch however many writes it holds. The baselines call a stored closure
// by hand, which is what a hand-written observer amounts to.

func observerWorkloads(_ config: RunConfig) -> [SpeedWorkload] {
  let section = "Observers"
  let writes = 100
  // Write i + 1 for the i-th op, one handler run each.
  let oneRunPerWrite: (Int) -> Tally = { ops in
    var t = Tally()
    for i in 0..<ops { t.checksum &+= i + 1 }
    t.effects = ops
    return t
  }
  return [
    SpeedWorkload(
      section: section, name: "onChange: 1 write → 1 delivery", op: "write, handler runs",
      verifyOps: 100,
      makeBaseline: { SingleWriteBaseline() }, makeGraph: { SingleWriteGraph() },
      expected: oneRunPerWrite),
    SpeedWorkload(
      section: section, name: "group, synchronous: 1 write → 1 re-run", op: "write, group re-runs",
      verifyOps: 100,
      makeBaseline: { SingleWriteBaseline() }, makeGraph: { GroupGraph(delivery: .synchronous) },
      expected: oneRunPerWrite),
    SpeedWorkload(
      section: section, name: "group, scheduled: 1 write → 1 re-run",
      op: "write, wait for the re-run (a task)", verifyOps: 100,
      makeBaseline: { SingleWriteBaseline() }, makeGraph: { GroupGraph(delivery: .scheduled) },
      expected: oneRunPerWrite),
    SpeedWorkload(
      section: section, name: "batch of \(writes) writes → 1 delivery",
      op: "batch: \(writes) writes, sum, handler", verifyOps: 100,
      makeBaseline: { BatchBaseline(writes: writes) }, makeGraph: { BatchGraph(writes: writes) },
      expected: { ops in
        var t = Tally()
        for i in 0..<ops { t.checksum &+= writes * (i + 1) }
        (t.recomputes, t.effects) = (ops, ops)
        return t
      }),
  ]
}

final class SingleWriteBaseline: Subject {
  final class Cell {
    var value = 0
    var onChange: (Int) -> Void = { _ in }
  }
  private let cell = Cell()
  private(set) var tally = Tally()

  init() {
    cell.onChange = { [unowned self] value in
      tally.effects += 1
      tally.checksum &+= value
    }
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      let value = i + 1
      if cell.value != value {
        cell.value = value
        cell.onChange(value)
      }
    }
  }
}

final class SingleWriteGraph: Subject {
  private let cell = Stored(wrappedValue: 0)
  private let deliveries = Counter()
  private let sum = Counter()
  private var subscription: StateGraphSubscription?
  var tally: Tally { Tally(checksum: sum.count, effects: deliveries.count) }

  init() {
    let (deliveries, sum) = (self.deliveries, self.sum)
    subscription = observe(cell) { value in
      deliveries.count += 1
      sum.count &+= value
    }
    (deliveries.count, sum.count) = (0, 0)
  }

  func run(_ ops: Range<Int>) {
    for i in ops { cell.wrappedValue = i + 1 }
  }
}

final class BatchBaseline: Subject {
  final class Cell { var value = 0 }
  private let cells: [Cell]
  private var total = 0
  private var onChange: (Int) -> Void = { _ in }
  private(set) var tally = Tally()

  init(writes: Int) {
    cells = (0..<writes).map { _ in Cell() }
    onChange = { [unowned self] value in
      tally.effects += 1
      tally.checksum &+= value
    }
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      var changed = false
      for cell in cells where cell.value != i + 1 {
        cell.value = i + 1
        changed = true
      }
      guard changed else { continue }
      var sum = 0
      for cell in cells { sum &+= cell.value }
      tally.recomputes += 1
      if sum != total {
        total = sum
        onChange(sum)
      }
    }
  }
}

/// Writes to every cell in one batch, or in one transaction.
final class BatchGraph: Subject {
  private let cells: [Stored<Int>]
  private let inTransaction: Bool
  private let counter = Counter()
  private let deliveries = Counter()
  private let sum = Counter()
  private var subscription: StateGraphSubscription?
  var tally: Tally {
    Tally(checksum: sum.count, recomputes: counter.count, effects: deliveries.count)
  }

  init(writes: Int, inTransaction: Bool = false) {
    let cells = (0..<writes).map { _ in Stored(wrappedValue: 0) }
    self.cells = cells
    self.inTransaction = inTransaction
    let (counter, deliveries, sum) = (self.counter, self.deliveries, self.sum)
    let total = Computed { _ in
      counter.count += 1
      var total = 0
      for cell in cells { total &+= cell.wrappedValue }
      return total
    }
    subscription = observe(total) { value in
      deliveries.count += 1
      sum.count &+= value
    }
    (counter.count, deliveries.count, sum.count) = (0, 0, 0)
  }

  func run(_ ops: Range<Int>) {
    let cells = self.cells
    for i in ops {
      if inTransaction {
        withGraphTransaction { for cell in cells { cell.wrappedValue = i + 1 } }
      } else {
        withGraphBatch { for cell in cells { cell.wrappedValue = i + 1 } }
      }
    }
  }
}

/// A tracking group over one node. With scheduled delivery each write's re-run
/// is a task of its own; `run` waits for it before the next write, so every
/// write is seen (and the time includes handing the run to another thread).
final class GroupGraph: Subject {
  private let cell = Stored(wrappedValue: 0)
  private let runs = Counter()
  private let sum = Counter()
  private let ran = DispatchSemaphore(value: 0)
  private let isScheduled: Bool
  private var subscription: StateGraphSubscription?
  var tally: Tally { Tally(checksum: sum.count, effects: runs.count) }

  init(delivery: GraphDelivery) {
    isScheduled = delivery == .scheduled
    let (cell, runs, sum, ran) = (self.cell, self.runs, self.sum, self.ran)
    subscription = withGraphTracking(delivery: delivery) {
      withGraphTrackingGroup(
        {
          let value = cell.wrappedValue
          runs.count += 1
          sum.count &+= value
          ran.signal()
        }, isolation: nil)
    }
    ran.wait()
    (runs.count, sum.count) = (0, 0)
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      cell.wrappedValue = i + 1
      ran.wait()
    }
  }
}
