import StateGraph

// Memory per node and per edge, all-in: the heap grows by everything a node
// costs (Swift object, value lock, observation registrar, compute box and
// closure context, C node, its name strings, registry slot, links), read from
// glibc's mallinfo2() before and after creating N of them (chunk headers
// included). The arrays holding the nodes are reserved beforehand, so they
// do not count.
//
// Baselines are what a hand-wired push graph needs: a stored value is an
// object with its value; a computed is an object with its value and a
// reference to what it computes from; an edge is one reference in the
// reader's `inputs` array and one in the source's `dependents` array.

private final class Holder: @unchecked Sendable {
  let constant: Int
  init(_ constant: Int) { self.constant = constant }
}

private final class PlainNode {
  var value: Int
  var dependents: [PlainReader] = []
  init(_ value: Int) { self.value = value }
}

private final class PlainComputed {
  var value = 0
  let holder: Holder
  init(_ holder: Holder) { self.holder = holder }
}

private final class PlainReader {
  var value = 0
  let inputs: [PlainNode]
  init(_ inputs: [PlainNode]) { self.inputs = inputs }
}

/// Heap bytes and allocations that `build` leaves behind, per item.
private func footprint<T>(items: Int, _ build: () -> T) -> (
  bytes: Double, allocations: Double, kept: T
) {
  Heap.trim()
  let before = Heap.inUse
  var kept: T?
  let counted = Heap.count { kept = build() }
  let after = Heap.inUse
  return (
    Double(after - before) / Double(items), Double(counted.allocations) / Double(items), kept!
  )
}

func memoryRows(_ config: RunConfig) -> [Row] {
  let count = config.quick ? 10_000 : 100_000
  let section = "Memory (heap bytes, all-in, \(count / 1000)k each)"
  let target = Target.ratio(max: 2, label: "memory")
  var rows: [Row] = []
  // Warm up lazily created state (registry, thread state) outside the counts.
  do {
    let stored = Stored(wrappedValue: 1)
    blackHole(Computed { _ in stored.wrappedValue }.wrappedValue)
  }

  // ---- stored nodes
  Verify.context = "memory: stored node"
  do {
    var plain: [PlainNode] = []
    plain.reserveCapacity(count)
    let b = footprint(items: count) {
      for k in 0..<count { plain.append(PlainNode(k)) }
    }
    var graph: [Stored<Int>] = []
    graph.reserveCapacity(count)
    let g = footprint(items: count) {
      for k in 0..<count { graph.append(Stored(wrappedValue: k)) }
    }
    Verify.equal(
      graph.reduce(0) { $0 &+ $1.wrappedValue }, plain.reduce(0) { $0 &+ $1.value }, "values")
    rows.append(
      Row(
        section: section, name: "stored node (Int)", op: "per node", baseline: b.bytes,
        graph: g.bytes, allocationsPerOp: g.allocations, bytesPerNode: g.bytes, target: target))
  }

  // ---- computed nodes (reading no node: the node alone; edges below)
  Verify.context = "memory: computed node"
  do {
    let holder = Holder(7)
    var plain: [PlainComputed] = []
    plain.reserveCapacity(count)
    let b = footprint(items: count) {
      for _ in 0..<count {
        let node = PlainComputed(holder)
        node.value = node.holder.constant + 1
        plain.append(node)
      }
    }
    var graph: [Computed<Int>] = []
    graph.reserveCapacity(count)
    let g = footprint(items: count) {
      for _ in 0..<count {
        let node = Computed { _ in holder.constant + 1 }
        _ = node.wrappedValue  // evaluated: the cached value is held
        graph.append(node)
      }
    }
    Verify.equal(graph.reduce(0) { $0 + $1.wrappedValue }, 8 * count, "values")
    rows.append(
      Row(
        section: section, name: "computed node (Int, evaluated)", op: "per node",
        baseline: b.bytes, graph: g.bytes, allocationsPerOp: g.allocations, bytesPerNode: g.bytes,
        target: target))
  }

  // ---- edges: readers with `wide` inputs minus readers with one input
  for wide in [8, 32] {
    Verify.context = "memory: edge (\(wide) inputs)"
    let pool = count / 10
    func inputs(_ reader: Int, _ n: Int) -> [Int] {
      (0..<n).map { (reader &* 7 &+ $0 &* 13) % pool }
    }

    func plainBytes(_ n: Int) -> Double {
      let sources = (0..<pool).map { PlainNode($0) }
      var readers: [PlainReader] = []
      readers.reserveCapacity(count)
      let measured = footprint(items: count) {
        for r in 0..<count {
          let reader = PlainReader(inputs(r, n).map { sources[$0] })
          for source in reader.inputs { source.dependents.append(reader) }
          readers.append(reader)
        }
      }
      blackHole(readers)
      for source in sources { source.dependents = [] }  // break the cycles
      return measured.bytes
    }
    func graphBytes(_ n: Int) -> (bytes: Double, allocations: Double) {
      let sources = (0..<pool).map { Stored(wrappedValue: $0) }
      var readers: [Computed<Int>] = []
      readers.reserveCapacity(count)
      let measured = footprint(items: count) {
        for r in 0..<count {
          let mine = inputs(r, n).map { sources[$0] }
          let reader = Computed { _ in mine.reduce(0) { $0 &+ $1.wrappedValue } }
          _ = reader.wrappedValue
          readers.append(reader)
        }
      }
      var sum = 0
      for reader in readers { sum &+= reader.wrappedValue }
      var expected = 0
      for r in 0..<count { for i in inputs(r, n) { expected &+= i } }
      Verify.equal(sum, expected, "reader values")
      return (measured.bytes, measured.allocations)
    }

    let baselineEdge = (plainBytes(wide) - plainBytes(1)) / Double(wide - 1)
    let graphWide = graphBytes(wide)
    let graphOne = graphBytes(1)
    let graphEdge = (graphWide.bytes - graphOne.bytes) / Double(wide - 1)
    rows.append(
      Row(
        section: section,
        name: wide <= 8 ? "edge (reader of \(wide) inputs)" : "edge (reader of \(wide), hashed)",
        op: "per edge", baseline: baselineEdge, graph: graphEdge,
        allocationsPerOp: (graphWide.allocations - graphOne.allocations) / Double(wide - 1)))
  }
  return rows
}
