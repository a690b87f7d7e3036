/// How the runner was asked to run.
struct RunConfig {
  /// CI smoke mode: small sizes, every workload verified, nothing timed.
  var quick = false
  /// Timed samples per implementation; the report shows their median.
  var samples = 9
  /// Target length of one timed sample.
  var sampleNanoseconds: UInt64 = 20_000_000
  /// Only workloads whose name contains this (case-insensitive).
  var filter: String?

  func includes(_ name: String) -> Bool {
    guard let filter else { return true }
    return name.lowercased().contains(filter.lowercased())
  }
}

/// An update workload: the same ops run on a hand-written baseline and on
/// StateGraph, verified against each other (and a closed form where there is
/// one), then timed.
struct SpeedWorkload {
  var section: String
  var name: String
  /// What one op is, for the table.
  var op: String
  /// Updates (writes or batches, with their reads) per op; times are
  /// reported per update.
  var updatesPerOp = 1
  var target: Target?
  /// Ops run before timing, compared op for op.
  var verifyOps: Int
  var makeBaseline: () -> any Subject
  var makeGraph: () -> any Subject
  /// The exact tally for ops `0..<n`, when it has a closed form.
  var expected: ((Int) -> Tally)?
  var note = ""
}

enum SpeedRunner {
  static func run(_ workload: SpeedWorkload, _ config: RunConfig) -> Row {
    Verify.context = workload.name
    var row = Row(
      section: workload.section, name: workload.name, op: workload.op, target: workload.target,
      note: workload.note)

    // 1. Verify: the same ops on both, compared exactly.
    let reference = workload.makeBaseline()
    let graph = workload.makeGraph()
    var cursor = workload.verifyOps
    reference.run(0..<cursor)
    graph.run(0..<cursor)
    check(reference, graph, workload, ops: cursor)
    if config.quick { return row }

    // 2. Allocations per op, after warm-up (the verify ops).
    let allocationOps = max(1, workload.verifyOps)
    let counted = Heap.count { graph.run(cursor..<cursor + allocationOps) }
    reference.run(cursor..<cursor + allocationOps)
    cursor += allocationOps
    if Heap.isCounting {
      row.allocationsPerOp =
        Double(counted.allocations + counted.reallocations) / Double(allocationOps)
    }

    // 3. Time. A separate baseline instance runs freely; `reference` catches
    // up with the graph afterwards for the final comparison.
    let timed = workload.makeBaseline()
    var baselineCursor = 0
    let baselineBatch = calibrate(timed, &baselineCursor, config.sampleNanoseconds)
    let graphBatch = calibrate(graph, &cursor, config.sampleNanoseconds)
    var baselineTimes: [Double] = []
    var graphTimes: [Double] = []
    let perUpdate = Double(workload.updatesPerOp)
    for _ in 0..<config.samples {  // interleaved: both see the same machine noise
      let range = baselineCursor..<baselineCursor + baselineBatch
      let b = timeNanoseconds { timed.run(range) }
      baselineCursor += baselineBatch
      baselineTimes.append(Double(b) / Double(baselineBatch) / perUpdate)

      let graphRange = cursor..<cursor + graphBatch
      let g = timeNanoseconds { graph.run(graphRange) }
      cursor += graphBatch
      graphTimes.append(Double(g) / Double(graphBatch) / perUpdate)
    }
    row.baseline = median(baselineTimes)
    row.graph = median(graphTimes)

    // 4. Verify everything the timed graph did.
    reference.run(workload.verifyOps + allocationOps..<cursor)
    check(reference, graph, workload, ops: cursor)
    if let expected = workload.expected {
      Verify.equal(
        timed.tally, expected(baselineCursor), "timed baseline after \(baselineCursor) ops")
    }
    return row
  }

  private static func check(
    _ reference: any Subject, _ graph: any Subject, _ workload: SpeedWorkload, ops: Int
  ) {
    if let expected = workload.expected {
      let tally = expected(ops)
      Verify.equal(reference.tally, tally, "baseline after \(ops) ops")
      Verify.equal(graph.tally, tally, "StateGraph after \(ops) ops")
    } else {
      Verify.equal(graph.tally, reference.tally, "StateGraph vs baseline after \(ops) ops")
    }
    Verify.that(
      reference.tally.recomputes > 0 || reference.tally.effects > 0
        || reference.tally.checksum != 0,
      "the workload did nothing")
  }

  /// Ops per sample so that a sample lasts about `target` nanoseconds.
  private static func calibrate(_ subject: any Subject, _ cursor: inout Int, _ target: UInt64)
    -> Int
  {
    var ops = 1
    while true {
      let range = cursor..<cursor + ops
      let elapsed = timeNanoseconds { subject.run(range) }
      cursor += ops
      if elapsed >= target / 8 || ops >= 1 << 26 {
        return max(1, Int(Double(ops) * Double(target) / Double(max(elapsed, 1))))
      }
      ops *= 2
    }
  }
}
