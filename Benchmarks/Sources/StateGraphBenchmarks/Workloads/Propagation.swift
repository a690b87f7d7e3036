import StateGraph

// Propagation shapes: chain, fan-out, fan-in, diamonds. One op writes one
// stored value and reads what depends on it. The baselines are plain final
// classes wired by hand that recompute exactly the nodes that changed, in
// topological order, with the same equality cutoff.

func propagationWorkloads(_ config: RunConfig) -> [SpeedWorkload] {
  let section = "Propagation"
  let target = Target.ratio(max: 4, label: "prop.")
  let chain = 1000
  let fan = 1000
  let wide = 100
  return [
    SpeedWorkload(
      section: section, name: "chain of \(chain) computeds", op: "write head, read tail",
      target: target, verifyOps: 20,
      makeBaseline: { ChainBaseline(length: chain) }, makeGraph: { ChainGraph(length: chain) },
      expected: { ops in
        var t = Tally()
        for i in 0..<ops { t.checksum &+= i + 1 + chain }
        t.recomputes = ops * chain
        return t
      }),
    SpeedWorkload(
      section: section, name: "chain of \(chain), C core alone", op: "sg_changed, sg_read tail",
      verifyOps: 20,
      makeBaseline: { ChainBaseline(length: chain) }, makeGraph: { CoreChain(length: chain) },
      expected: { ops in
        var t = Tally()
        for i in 0..<ops { t.checksum &+= i + 1 + chain }
        t.recomputes = ops * chain
        return t
      }, note: "no Swift wrapper: C callbacks"),
    SpeedWorkload(
      section: section, name: "fan-out 1 → \(fan)", op: "write source, read all \(fan)",
      target: target, verifyOps: 20,
      makeBaseline: { FanOutBaseline(width: fan) }, makeGraph: { FanOutGraph(width: fan) },
      expected: { ops in
        var t = Tally()
        for i in 0..<ops { t.checksum &+= fan * (i + 1) + fan * (fan - 1) / 2 }
        t.recomputes = ops * fan
        return t
      }),
    SpeedWorkload(
      section: section, name: "fan-in \(fan) → 1", op: "bump one source, read sum",
      target: target, verifyOps: 2 * fan,
      makeBaseline: { FanInBaseline(width: fan) }, makeGraph: { FanInGraph(width: fan) },
      expected: { ops in
        var t = Tally()
        for i in 0..<ops { t.checksum &+= fan * (fan - 1) / 2 + i + 1 }
        t.recomputes = ops
        return t
      }),
    SpeedWorkload(
      section: section, name: "diamond (a → b, c → d)", op: "write a, read d",
      target: target, verifyOps: 20,
      makeBaseline: { DiamondBaseline(width: 2) }, makeGraph: { DiamondGraph(width: 2) },
      expected: { ops in diamondExpected(width: 2, ops: ops) }),
    SpeedWorkload(
      section: section, name: "diamond \(wide) wide", op: "write a, read sum",
      target: target, verifyOps: 20,
      makeBaseline: { DiamondBaseline(width: wide) }, makeGraph: { DiamondGraph(width: wide) },
      expected: { ops in diamondExpected(width: wide, ops: ops) }),
  ]
}

// ----------------------------------------------------------------- chain

final class ChainBaseline: Subject {
  final class Node {
    let source: Node?
    var value: Int
    init(source: Node?, value: Int) { (self.source, self.value) = (source, value) }
  }
  private let head = Node(source: nil, value: 0)
  private var nodes: [Node] = []
  private(set) var tally = Tally()

  init(length: Int) {
    var previous = head
    for _ in 0..<length {
      previous = Node(source: previous, value: previous.value + 1)
      nodes.append(previous)
    }
  }

  func run(_ ops: Range<Int>) {
    let tail = nodes[nodes.count - 1]
    for i in ops {
      let value = i + 1
      if head.value != value {
        head.value = value
        for node in nodes {
          let new = node.source!.value + 1
          tally.recomputes += 1
          if new == node.value { break }  // cutoff: nothing further changes
          node.value = new
        }
      }
      tally.checksum &+= tail.value
    }
  }
}

final class ChainGraph: Subject {
  private let head = Stored(wrappedValue: 0)
  private let tail: Computed<Int>
  private let counter = Counter()
  private var checksum = 0
  private var nodes: [Computed<Int>] = []
  var tally: Tally { Tally(checksum: checksum, recomputes: counter.count) }

  init(length: Int) {
    let counter = self.counter
    let head = self.head
    var last = Computed { _ in
      counter.count += 1
      return head.wrappedValue + 1
    }
    nodes.append(last)
    for _ in 1..<length {
      let previous = last
      last = Computed { _ in
        counter.count += 1
        return previous.wrappedValue + 1
      }
      nodes.append(last)
    }
    tail = last
    _ = tail.wrappedValue
    counter.count = 0
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      head.wrappedValue = i + 1
      checksum &+= tail.wrappedValue
    }
  }
}

// --------------------------------------------------------------- fan-out

final class FanOutBaseline: Subject {
  final class Node {
    let offset: Int
    var value: Int
    init(offset: Int) { (self.offset, self.value) = (offset, offset) }
  }
  final class Source {
    var value = 0
    var dependents: [Node] = []
  }
  private let source = Source()
  private(set) var tally = Tally()

  init(width: Int) {
    source.dependents = (0..<width).map { Node(offset: $0) }
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      let value = i + 1
      if source.value != value {
        source.value = value
        for node in source.dependents {
          node.value = source.value + node.offset
          tally.recomputes += 1
        }
      }
      for node in source.dependents { tally.checksum &+= node.value }
    }
  }
}

final class FanOutGraph: Subject {
  private let source = Stored(wrappedValue: 0)
  private var nodes: [Computed<Int>] = []
  private let counter = Counter()
  private var checksum = 0
  var tally: Tally { Tally(checksum: checksum, recomputes: counter.count) }

  init(width: Int) {
    let (source, counter) = (self.source, self.counter)
    nodes = (0..<width).map { offset in
      Computed { _ in
        counter.count += 1
        return source.wrappedValue + offset
      }
    }
    for node in nodes { _ = node.wrappedValue }
    counter.count = 0
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      source.wrappedValue = i + 1
      for node in nodes { checksum &+= node.wrappedValue }
    }
  }
}

// ---------------------------------------------------------------- fan-in

final class FanInBaseline: Subject {
  final class Source {
    var value: Int
    init(_ value: Int) { self.value = value }
  }
  final class Sum {
    let sources: [Source]
    var value = 0
    init(_ sources: [Source]) { self.sources = sources }
    func recompute() {
      var total = 0
      for source in sources { total &+= source.value }
      value = total
    }
  }
  private let sources: [Source]
  private let sum: Sum
  private(set) var tally = Tally()

  init(width: Int) {
    sources = (0..<width).map { Source($0) }
    sum = Sum(sources)
    sum.recompute()
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      sources[i % sources.count].value += 1
      sum.recompute()
      tally.recomputes += 1
      tally.checksum &+= sum.value
    }
  }
}

final class FanInGraph: Subject {
  private let sources: [Stored<Int>]
  private let sum: Computed<Int>
  private let counter = Counter()
  private var checksum = 0
  var tally: Tally { Tally(checksum: checksum, recomputes: counter.count) }

  init(width: Int) {
    let sources = (0..<width).map { Stored(wrappedValue: $0) }
    let counter = self.counter
    self.sources = sources
    sum = Computed { _ in
      counter.count += 1
      var total = 0
      for source in sources { total &+= source.wrappedValue }
      return total
    }
    _ = sum.wrappedValue
    counter.count = 0
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      sources[i % sources.count].wrappedValue += 1
      checksum &+= sum.wrappedValue
    }
  }
}

// --------------------------------------------------------------- diamond

/// width 2 is the classic diamond: b = a * 2, c = a + 1, d = b + c.
/// Wider: m_k = a + k for k < width, sum = Σ m_k.
func diamondExpected(width: Int, ops: Int) -> Tally {
  var t = Tally()
  for i in 0..<ops {
    let a = i + 1
    t.checksum &+= width == 2 ? 3 * a + 1 : width * a + width * (width - 1) / 2
  }
  t.recomputes = ops * (width + 1)
  return t
}

final class DiamondBaseline: Subject {
  final class Middle {
    let offset: Int
    var value = 0
    init(offset: Int) { self.offset = offset }
  }
  private let classic: Bool
  private var a = 0
  private let middles: [Middle]
  private var bottom = 0
  private(set) var tally = Tally()

  init(width: Int) {
    classic = width == 2
    middles = (0..<width).map { Middle(offset: $0) }
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      let value = i + 1
      if a != value {
        a = value
        if classic {
          middles[0].value = a * 2
          middles[1].value = a + 1
        } else {
          for middle in middles { middle.value = a + middle.offset }
        }
        var total = 0
        for middle in middles { total &+= middle.value }
        bottom = total
        tally.recomputes += middles.count + 1
      }
      tally.checksum &+= bottom
    }
  }
}

final class DiamondGraph: Subject {
  private let a = Stored(wrappedValue: 0)
  private let bottom: Computed<Int>
  private let middles: [Computed<Int>]
  private let counter = Counter()
  private var checksum = 0
  var tally: Tally { Tally(checksum: checksum, recomputes: counter.count) }

  init(width: Int) {
    let (a, counter) = (self.a, self.counter)
    if width == 2 {
      middles = [
        Computed { _ in
          counter.count += 1
          return a.wrappedValue * 2
        },
        Computed { _ in
          counter.count += 1
          return a.wrappedValue + 1
        },
      ]
    } else {
      middles = (0..<width).map { offset in
        Computed { _ in
          counter.count += 1
          return a.wrappedValue + offset
        }
      }
    }
    let middles = self.middles
    bottom = Computed { _ in
      counter.count += 1
      var total = 0
      for middle in middles { total &+= middle.wrappedValue }
      return total
    }
    _ = bottom.wrappedValue
    counter.count = 0
  }

  func run(_ ops: Range<Int>) {
    for i in ops {
      a.wrappedValue = i + 1
      checksum &+= bottom.wrappedValue
    }
  }
}
