import StateGraph

// The dynamic-graph suites of js-reactivity-benchmark (after reactively's
// dependency-graph benchmark): `width` stored sources, then `layers - 1` rows
// of `width` computeds, each reading `inputs` nodes of the row above
// (indices k, k+1, ... mod width). A fraction of the nodes are dynamic: they
// read their first input, and when it is odd they skip one of the others
// (which one depends on its value), so their dependency sets change as the
// values do. One op writes one source (i % width) and reads the leaves.
//
// The graph's plan (which nodes are dynamic, which leaves are read) comes
// from a seeded generator and is shared by both implementations, so the sums
// and computation counts must agree exactly. (The JavaScript suite's
// expected sums depend on its own random generator and are not reproduced.)

struct DynamicGraphConfig {
  var name: String
  var width: Int
  var layers: Int
  var staticFraction: Double
  var inputs: Int
  var readFraction: Double
}

func dynamicGraphWorkloads(_ config: RunConfig) -> [SpeedWorkload] {
  let suites = [
    DynamicGraphConfig(
      name: "25-1000x5 wide dense", width: 1000, layers: 5, staticFraction: 1, inputs: 25,
      readFraction: 1),
    DynamicGraphConfig(
      name: "3-5x500 deep", width: 5, layers: 500, staticFraction: 1, inputs: 3, readFraction: 1),
    DynamicGraphConfig(
      name: "4-1000x12 5% dynamic", width: 1000, layers: 12, staticFraction: 0.95, inputs: 4,
      readFraction: 1),
    DynamicGraphConfig(
      name: "6-100x15 50% dynamic", width: 100, layers: 15, staticFraction: 0.5, inputs: 6,
      readFraction: 1),
  ]
  return suites.map { suite in
    let plan = DynamicGraphPlan(suite)
    return SpeedWorkload(
      section: "Dynamic graphs (js-reactivity-benchmark)", name: "dynamic \(suite.name)",
      op: "write 1 source, read \(plan.readLeaves.count) leaves",
      target: .ratio(max: 6, label: "dyn."), verifyOps: config.quick ? 50 : 300,
      makeBaseline: { DynamicGraphBaseline(plan) }, makeGraph: { DynamicGraphGraph(plan) })
  }
}

// ------------------------------------------------------------------ plan

/// SplitMix64: small, seeded, the same sequence on every platform.
struct SeededGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  /// Uniform in [0, 1).
  mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

struct DynamicGraphPlan {
  struct Node {
    var isStatic: Bool
    /// Indices into the row above.
    var inputs: [Int]
  }
  var config: DynamicGraphConfig
  var rows: [[Node]] = []
  var readLeaves: [Int] = []

  init(_ config: DynamicGraphConfig) {
    self.config = config
    var random = SeededGenerator(seed: 0x5747_4154_4547_5241)
    for _ in 0..<config.layers - 1 {
      rows.append(
        (0..<config.width).map { index in
          Node(
            isStatic: random.unit() < config.staticFraction,
            inputs: (0..<config.inputs).map { (index + $0) % config.width })
        })
    }
    var leaves = Array(0..<config.width)
    let skip = Int((Double(config.width) * (1 - config.readFraction)).rounded())
    for _ in 0..<skip { leaves.remove(at: Int(random.next() % UInt64(leaves.count))) }
    readLeaves = leaves
  }
}

/// What a node computes, shared by both implementations.
@inline(__always)
func dynamicNodeValue(isStatic: Bool, count: Int, _ input: (Int) -> Int) -> Int {
  if isStatic {
    var sum = 0
    for k in 0..<count { sum &+= input(k) }
    return sum
  }
  // Dynamic: the first input decides whether (and which) other input to skip.
  var sum = input(0)
  let shouldDrop = sum & 1 != 0
  let dropIndex = sum % (count - 1)
  for k in 0..<count - 1 where !(shouldDrop && k == dropIndex) { sum &+= input(k + 1) }
  return sum
}

// -------------------------------------------------------------- baseline

/// Push propagation by hand: from the written source, layer by layer, each
/// reached node recomputes when an input it actually reads changed value.
final class DynamicGraphBaseline: Subject {
  final class Node {
    var value: Int
    let isStatic: Bool
    var inputs: [Node] = []
    var dependents: [Node] = []
    var changedIn = -1  // the update in which the value last changed
    var reachedIn = -1  // the update that last queued the node
    init(value: Int, isStatic: Bool) { (self.value, self.isStatic) = (value, isStatic) }

    /// True when an input the node reads with the current values changed.
    func mustRecompute(_ update: Int) -> Bool {
      if isStatic || inputs[0].changedIn == update { return true }
      let first = inputs[0].value
      let shouldDrop = first & 1 != 0
      let dropIndex = first % (inputs.count - 1)
      for k in 1..<inputs.count where !(shouldDrop && k - 1 == dropIndex) {
        if inputs[k].changedIn == update { return true }
      }
      return false
    }

    func recompute() -> Bool {
      let inputs = self.inputs
      let new = dynamicNodeValue(isStatic: isStatic, count: inputs.count) { inputs[$0].value }
      guard new != value else { return false }
      value = new
      return true
    }
  }

  private let sources: [Node]
  private var leaves: [Node] = []
  private var frontier: [Node] = []
  private var next: [Node] = []
  private(set) var tally = Tally()

  init(_ plan: DynamicGraphPlan) {
    sources = (0..<plan.config.width).map { Node(value: $0, isStatic: true) }
    var above = sources
    for row in plan.rows {
      let nodes = row.map { planned in
        let node = Node(value: 0, isStatic: planned.isStatic)
        node.inputs = planned.inputs.map { above[$0] }
        for input in node.inputs where input.dependents.last !== node {
          input.dependents.append(node)
        }
        _ = node.recompute()
        return node
      }
      above = nodes
    }
    leaves = plan.readLeaves.map { above[$0] }
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      let index = i % sources.count
      let source = sources[index]
      let value = i + index
      if source.value != value {
        source.value = value
        source.changedIn = i
        frontier.append(source)
        while !frontier.isEmpty {
          for node in frontier {
            for dependent in node.dependents where dependent.reachedIn != i {
              dependent.reachedIn = i
              guard dependent.mustRecompute(i) else { continue }
              tally.recomputes += 1
              if dependent.recompute() {
                dependent.changedIn = i
                next.append(dependent)
              }
            }
          }
          swap(&frontier, &next)
          next.removeAll(keepingCapacity: true)
        }
      }
      for leaf in leaves { tally.checksum &+= leaf.value }
    }
  }
}

// ------------------------------------------------------------ StateGraph

final class DynamicGraphGraph: Subject {
  private let sources: [Stored<Int>]
  private var leaves: [Computed<Int>] = []
  private var rows: [[Computed<Int>]] = []
  private let counter = Counter()
  private var checksum = 0
  var tally: Tally { Tally(checksum: checksum, recomputes: counter.count) }

  init(_ plan: DynamicGraphPlan) {
    sources = (0..<plan.config.width).map { Stored(wrappedValue: $0) }
    let counter = self.counter
    /// Generic over the row above (stored sources, or computeds), so each
    /// closure reads concrete nodes.
    func row<Input: GraphNode<Int>>(_ planned: [DynamicGraphPlan.Node], above: [Input])
      -> [Computed<Int>]
    {
      planned.map { node in
        let inputs = node.inputs.map { above[$0] }
        let isStatic = node.isStatic
        return Computed { _ in
          counter.count += 1
          return dynamicNodeValue(isStatic: isStatic, count: inputs.count) {
            inputs[$0].wrappedValue
          }
        }
      }
    }
    for planned in plan.rows {
      rows.append(
        rows.isEmpty ? row(planned, above: sources) : row(planned, above: rows[rows.count - 1]))
    }
    let last = rows[rows.count - 1]
    leaves = plan.readLeaves.map { last[$0] }
    for leaf in leaves { _ = leaf.wrappedValue }
    counter.count = 0
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      let index = i % sources.count
      sources[index].wrappedValue = i + index
      for leaf in leaves { checksum &+= leaf.wrappedValue }
    }
  }
}
