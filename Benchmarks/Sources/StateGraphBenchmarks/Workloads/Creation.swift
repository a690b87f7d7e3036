import StateGraph

// Creation: N stored nodes and N computed nodes (c_k = s_k + 1), each
// computed read once so that it has run and holds its edge. The baseline
// builds the same pairs of plain objects and computes each value once.
// Timed per pair; destruction is timed separately (informational).

private final class PlainStored {
  var value: Int
  init(_ value: Int) { self.value = value }
}

private final class PlainComputed {
  let source: PlainStored
  var value = 0
  init(_ source: PlainStored) { self.source = source }
}

private struct BaselinePairs {
  var stored: [PlainStored] = []
  var computed: [PlainComputed] = []
  var checksum = 0
  var recomputes = 0

  init(count: Int) {
    stored.reserveCapacity(count)
    computed.reserveCapacity(count)
    for k in 0..<count { stored.append(PlainStored(k)) }
    for source in stored {
      let node = PlainComputed(source)
      node.value = source.value + 1
      recomputes += 1
      computed.append(node)
    }
    for node in computed { checksum &+= node.value }
  }
}

private struct GraphPairs {
  var stored: [Stored<Int>] = []
  var computed: [Computed<Int>] = []
  var checksum = 0
  let counter = Counter()

  init(count: Int) {
    stored.reserveCapacity(count)
    computed.reserveCapacity(count)
    let counter = self.counter
    for k in 0..<count { stored.append(Stored(wrappedValue: k)) }
    for source in stored {
      computed.append(
        Computed { _ in
          counter.count += 1
          return source.wrappedValue + 1
        })
    }
    for node in computed { checksum &+= node.wrappedValue }
  }
}

func creationRows(_ config: RunConfig) -> [Row] {
  let count = config.quick ? 10_000 : 100_000
  let name = "create \(count / 1000)k stored + \(count / 1000)k computed"
  Verify.context = name
  let expectedChecksum = (0..<count).reduce(0) { $0 &+ $1 + 1 }

  func verify(_ checksum: Int, _ recomputes: Int, _ who: String) {
    Verify.equal(checksum, expectedChecksum, "\(who): sum of the computed values")
    Verify.equal(recomputes, count, "\(who): computations")
  }

  let check = BaselinePairs(count: count)
  verify(check.checksum, check.recomputes, "baseline")
  let graphCheck = GraphPairs(count: count)
  verify(graphCheck.checksum, graphCheck.counter.count, "StateGraph")
  var creation = Row(
    section: "Creation", name: name, op: "1 stored + 1 computed, first read",
    target: .ratio(max: 3, label: "creation"))
  var destruction = Row(
    section: "Creation", name: "destroy them", op: "1 stored + 1 computed")
  if config.quick { return [creation] }

  var createTimes: (baseline: [Double], graph: [Double]) = ([], [])
  var destroyTimes: (baseline: [Double], graph: [Double]) = ([], [])
  var heapGrowth = 0
  let samples = max(3, config.samples / 2)
  for sample in 0..<samples {
    var baseline: BaselinePairs?
    createTimes.baseline.append(Double(timeNanoseconds { baseline = BaselinePairs(count: count) }))
    verify(baseline!.checksum, baseline!.recomputes, "baseline")
    destroyTimes.baseline.append(Double(timeNanoseconds { baseline = nil }))

    var graph: GraphPairs?
    let before = Heap.inUse
    createTimes.graph.append(Double(timeNanoseconds { graph = GraphPairs(count: count) }))
    if sample == 0 { heapGrowth = Heap.inUse - before }
    verify(graph!.checksum, graph!.counter.count, "StateGraph")
    destroyTimes.graph.append(Double(timeNanoseconds { graph = nil }))
  }
  let allocations = Heap.count { blackHole(GraphPairs(count: count)) }
  let perPair = Double(count)
  creation.baseline = median(createTimes.baseline) / perPair
  creation.graph = median(createTimes.graph) / perPair
  if Heap.isCounting {
    creation.allocationsPerOp = Double(allocations.allocations) / perPair
    creation.bytesPerNode = Double(heapGrowth) / Double(2 * count)
  }
  destruction.baseline = median(destroyTimes.baseline) / perPair
  destruction.graph = median(destroyTimes.graph) / perPair
  return [creation, destruction]
}

/// `--profile N --filter creation`: N stored + computed pairs made, read and
/// destroyed on StateGraph only, for callgrind (`--toggle-collect` on
/// `*profileCreation*` counts them alone).
@inline(never)
func profileCreation(pairs count: Int) {
  var pairs: GraphPairs? = GraphPairs(count: count)
  let checksum = pairs!.checksum
  pairs = nil
  let expected = (0..<count).reduce(0) { $0 &+ $1 + 1 }
  Verify.equal(checksum, expected, "creation: sum of the computed values")
  print("creation: \(count) stored + \(count) computed, checksum \(checksum)")
}
