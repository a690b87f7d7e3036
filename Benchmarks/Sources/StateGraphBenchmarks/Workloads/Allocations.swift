import StateGraph

// Heap allocations per steady-state update, counted by the MallocCounter
// interposer (every malloc/calloc/realloc/aligned allocation of the process,
// from Swift, GLib and the core alike) after a warm-up. The target rows are
// write + read of a chain and a fan-out of Int; the rows below them split an
// update into its parts, to show where allocations come from.

/// Allocations (and bytes) per op of `op`, after `warmUp` ops.
private func countPerOp(ops: Int = 1000, warmUp: Int = 100, _ op: (Int) -> Void) -> (
  allocations: Double, bytes: Double
) {
  for i in 0..<warmUp { op(i) }
  let counted = Heap.count {
    for i in warmUp..<warmUp + ops { op(i) }
  }
  return (
    Double(counted.allocations + counted.reallocations) / Double(ops),
    Double(counted.bytes) / Double(ops)
  )
}

private func subjectOp(_ subject: any Subject) -> (Int) -> Void {
  { i in subject.run(i..<i + 1) }
}

func allocationRows(_ config: RunConfig) -> [Row] {
  let section = "Steady-state allocations (per update, after warm-up)"
  guard Heap.isCounting else {
    return [
      Row(
        section: section, name: "(not measured)", op: "",
        note: "the malloc interposer is inactive on this platform (glibc only)")
    ]
  }
  var rows: [Row] = []
  func row(
    _ name: String, _ op: String, target: Target? = nil, baseline: ((Int) -> Void)? = nil,
    graph: (Int) -> Void
  ) {
    Verify.context = "allocations: \(name)"
    let g = countPerOp(graph)
    var row = Row(
      section: section, name: name, op: op, graph: g.allocations, allocationsPerOp: g.allocations,
      target: target)
    if let baseline { row.baseline = countPerOp(baseline).allocations }
    if g.allocations > 0 { row.note = "\(formatMeasure(g.bytes)) B/update" }
    rows.append(row)
  }

  /// A row over two subjects that run the same ops; their tallies must agree.
  func row(
    _ name: String, _ op: String, target: Target? = nil, baseline: any Subject, graph: any Subject
  ) {
    row(name, op, target: target, baseline: subjectOp(baseline), graph: subjectOp(graph))
    Verify.equal(graph.tally, baseline.tally, "StateGraph vs baseline")
  }

  // ---- the targets
  row(
    "chain of 10 Int", "write head, read tail", target: .zeroAllocations,
    baseline: ChainBaseline(length: 10), graph: ChainGraph(length: 10))
  row(
    "fan-out 1 → 10 Int", "write source, read all", target: .zeroAllocations,
    baseline: FanOutBaseline(width: 10), graph: FanOutGraph(width: 10))

  // ---- where they come from
  row(
    "C core alone: chain of 10", "sg_changed + sg_read", baseline: ChainBaseline(length: 10),
    graph: CoreChain(length: 10))
  do {
    let lone = Stored(wrappedValue: 0)
    row("Stored write, nobody reads it", "write") { i in lone.wrappedValue = i + 1 }
  }
  do {
    let source = Stored(wrappedValue: 0)
    let reader = Computed { _ in source.wrappedValue + 1 }
    _ = reader.wrappedValue
    row("Stored write, 1 dependent", "write (no read)") { i in source.wrappedValue = i + 1 }
    row("Stored read, outside computations", "read") { _ in blackHole(source.wrappedValue) }
    row("Computed read, up to date", "read") { _ in blackHole(reader.wrappedValue) }
    row("Computed read after a write", "write + read") { i in
      source.wrappedValue = i + 1
      blackHole(reader.wrappedValue)
    }
    row("withGraphBatch { 1 write }", "batch") { i in
      withGraphBatch { source.wrappedValue = i + 1 }
    }
  }
  do {
    let source = Stored(wrappedValue: 0)
    let deliveries = Counter()
    let subscription = observe(source) { _ in deliveries.count += 1 }
    row("onChange delivery", "write → handler") { i in source.wrappedValue = i + 1 }
    Verify.equal(deliveries.count, 1 + 1100, "deliveries (1 at registration + 1 per write)")
    withExtendedLifetime(subscription) {}
  }
  return rows
}
