import StateGraph

// An update's cost must grow with the nodes it reaches, not with the graph:
// the graph is made of independent chains of 10 nodes (1 stored + 9
// computeds), and one op writes one chain's head and reads its tail, so an
// update reaches exactly 10 nodes whatever the graph's size. "Same chain"
// updates one chain over and over (the issue's check: algorithmic cost);
// "rotating" walks all chains in a scattered order, so at 1M nodes most
// updates miss the CPU caches (informational: what hardware adds).

private let chainNodes = 10

final class ScalingBaseline: Subject {
  final class Node {
    let input: Node?
    var value = 0
    init(_ input: Node?) { self.input = input }
  }
  private var heads: [Node] = []
  private var chains: [[Node]] = []
  private let rotating: Bool
  private(set) var tally = Tally()

  init(nodes: Int, rotating: Bool) {
    self.rotating = rotating
    for _ in 0..<nodes / chainNodes {
      let head = Node(nil)
      var chain: [Node] = []
      var last = head
      for _ in 1..<chainNodes {
        last = Node(last)
        last.value = last.input!.value + 1
        chain.append(last)
      }
      heads.append(head)
      chains.append(chain)
    }
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      let c = rotating ? (i &* 7919) % heads.count : 0
      let head = heads[c]
      head.value = i + 1
      let chain = chains[c]
      for node in chain {
        node.value = node.input!.value + 1
        tally.recomputes += 1
      }
      tally.checksum &+= chain[chain.count - 1].value
    }
  }
}

final class ScalingGraph: Subject {
  private var heads: [Stored<Int>] = []
  private var tails: [Computed<Int>] = []
  private let counter = Counter()
  private let rotating: Bool
  private var checksum = 0
  var tally: Tally { Tally(checksum: checksum, recomputes: counter.count) }

  init(nodes: Int, rotating: Bool) {
    self.rotating = rotating
    let counter = self.counter
    let chains = nodes / chainNodes
    heads.reserveCapacity(chains)
    tails.reserveCapacity(chains)
    for _ in 0..<chains {
      let head = Stored(wrappedValue: 0)
      var last = Computed { _ in
        counter.count += 1
        return head.wrappedValue + 1
      }
      for _ in 2..<chainNodes {
        let previous = last
        last = Computed { _ in
          counter.count += 1
          return previous.wrappedValue + 1
        }
      }
      _ = last.wrappedValue
      heads.append(head)
      tails.append(last)
    }
    counter.count = 0
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      let c = rotating ? (i &* 7919) % heads.count : 0
      heads[c].wrappedValue = i + 1
      checksum &+= tails[c].wrappedValue
    }
  }
}

private func label(_ n: Int) -> String { n >= 1_000_000 ? "\(n / 1_000_000)M" : "\(n / 1000)k" }

private func scalingSizes(_ config: RunConfig) -> (small: Int, large: Int) {
  (10_000, config.quick ? 100_000 : 1_000_000)
}

/// The four runs: same chain and rotating chains, in the small and large graph.
func scalingWorkloads(_ config: RunConfig) -> [SpeedWorkload] {
  let (small, large) = scalingSizes(config)
  let section = "Scaling (10-node update; graph of \(label(small)) vs \(label(large)) nodes)"
  return [false, true].flatMap { rotating in
    [small, large].map { nodes in
      SpeedWorkload(
        section: section,
        name: "\(rotating ? "rotating chains" : "same chain"), \(label(nodes)) nodes",
        op: "write head, read tail", verifyOps: 200,
        makeBaseline: { ScalingBaseline(nodes: nodes, rotating: rotating) },
        makeGraph: { ScalingGraph(nodes: nodes, rotating: rotating) },
        expected: { ops in
          var t = Tally()
          for i in 0..<ops { t.checksum &+= i + 1 + chainNodes - 1 }
          t.recomputes = ops * (chainNodes - 1)
          return t
        })
    }
  }
}

func scalingRows(_ config: RunConfig) -> [Row] {
  let (small, large) = scalingSizes(config)
  let workloads = scalingWorkloads(config)
  var rows: [Row] = []
  for (index, rotating) in [false, true].enumerated() {
    let pair = workloads[2 * index..<2 * index + 2].map { SpeedRunner.run($0, config) }
    rows += pair
    var ratio = Row(
      section: pair[0].section,
      name: "\(rotating ? "rotating chains" : "same chain"): \(label(large)) ÷ \(label(small))",
      op: "time ratio", target: rotating ? nil : .scaling(max: 1.5))
    if let g0 = pair[0].graph, let g1 = pair[1].graph, let b0 = pair[0].baseline,
      let b1 = pair[1].baseline
    {
      ratio.ratioOverride = g1 / g0
      ratio.note = "baseline: \(format(b1 / b0, digits: 2))×"
    }
    rows.append(ratio)
  }
  return rows
}
