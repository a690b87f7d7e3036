import StateGraph

// Staged transactions (`withGraphTransaction`): writes kept per thread until the body
// returns, then applied as one step. The baselines are the plain classes of the batch
// workload, which a transaction must match: one recompute and one delivery per op.

func transactionWorkloads(_ config: RunConfig) -> [SpeedWorkload] {
  let section = "Transactions"
  let writes = 100
  return [
    SpeedWorkload(
      section: section, name: "transaction of \(writes) writes → 1 delivery",
      op: "transaction: \(writes) writes, sum, handler", verifyOps: 100,
      makeBaseline: { BatchBaseline(writes: writes) },
      makeGraph: { BatchGraph(writes: writes, inTransaction: true) },
      expected: { ops in
        var t = Tally()
        for i in 0..<ops { t.checksum &+= writes * (i + 1) }
        (t.recomputes, t.effects) = (ops, ops)
        return t
      }),
    SpeedWorkload(
      section: section, name: "transaction: 1 write, read a computed over it",
      op: "transaction: write, read the staged computed", verifyOps: 100,
      makeBaseline: { StagedReadBaseline() }, makeGraph: { StagedReadGraph() },
      expected: { ops in
        var t = Tally()
        for i in 0..<ops { t.checksum &+= 2 * (i + 1) }
        t.recomputes = ops
        return t
      }),
  ]
}

/// One cell and its double, read right after the write.
final class StagedReadBaseline: Subject {
  private var cell = 0
  private(set) var tally = Tally()

  func run(_ ops: Range<Int>) {
    for i in ops {
      cell = i + 1
      tally.recomputes += 1
      tally.checksum &+= cell * 2
    }
  }
}

/// Inside each transaction the computed, which depends on the written node, is evaluated
/// against the staged value: its closure runs once per op; nobody reads it after the
/// commit.
final class StagedReadGraph: Subject {
  private let cell = Stored(wrappedValue: 0)
  private let doubled: Computed<Int>
  private let counter = Counter()
  private let sum = Counter()
  var tally: Tally { Tally(checksum: sum.count, recomputes: counter.count) }

  init() {
    let (cell, counter) = (self.cell, self.counter)
    doubled = Computed { _ in
      counter.count += 1
      return cell.wrappedValue * 2
    }
    _ = doubled.wrappedValue  // its edge makes it one the staged write reaches
    counter.count = 0
  }

  func run(_ ops: Range<Int>) {
    let (cell, doubled, sum) = (self.cell, self.doubled, self.sum)
    for i in ops {
      withGraphTransaction {
        cell.wrappedValue = i + 1
        sum.count &+= doubled.wrappedValue
      }
    }
  }
}
