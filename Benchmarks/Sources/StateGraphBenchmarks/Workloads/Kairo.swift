import StateGraph

// The kairo suite of js-reactivity-benchmark: the same graph shapes, the same
// run() loops and the same asserts (values after each write, effect counts
// per run). One op is one run(); times are reported per update (one batched
// write with its reads and effects). Each run() body below is written once,
// generically, and drives both implementations, so both do identical ops.

/// What a kairo run() needs from an implementation.
protocol KairoShape: AnyObject {
  /// One `withBatch { head.write(value) }` (or `heads[index]`).
  func write(_ value: Int, at index: Int)
  /// The value the run asserts on (`current`, `sum`, `last`, `splited[index]`).
  func read(at index: Int) -> Int
  /// Effect runs and computations since setup.
  var effects: Int { get }
  var recomputes: Int { get }
  /// mux: the sum its effects accumulate.
  var effectSum: Int { get set }
}

/// One kairo benchmark's run() body. Generic, so it is specialized for each
/// implementation: calls into the baseline are direct and inlined, as they
/// would be in hand-written code. Returns the sum of the values it read.
protocol KairoBench {
  static func run<Shape: KairoShape>(_ s: Shape) -> Int
}

/// Adapts a kairo shape to the runner: op = one run().
final class KairoSubject<Shape: KairoShape, Bench: KairoBench>: Subject {
  private let shape: Shape
  private var checksum = 0
  var tally: Tally {
    Tally(checksum: checksum, recomputes: shape.recomputes, effects: shape.effects)
  }

  init(_ shape: Shape, _: Bench.Type) { self.shape = shape }

  func run(_ ops: Range<Int>) {
    for _ in ops { checksum &+= Bench.run(shape) }
  }
}

func kairoWorkloads(_ config: RunConfig) -> [SpeedWorkload] {
  let section = "Kairo (js-reactivity-benchmark)"
  let propagation = Target.ratio(max: 4, label: "prop.")
  let dynamic = Target.ratio(max: 6, label: "dyn.")
  func workload<B: KairoShape, G: KairoShape, Bench: KairoBench>(
    _ name: String, updates: Int, _ target: Target, note: String = "",
    baseline: @escaping () -> B, graph: @escaping () -> G, run: Bench.Type
  ) -> SpeedWorkload {
    SpeedWorkload(
      section: section, name: "kairo \(name)", op: "run() ÷ \(updates) updates",
      updatesPerOp: updates, target: target, verifyOps: 3,
      makeBaseline: { KairoSubject(baseline(), Bench.self) },
      makeGraph: { KairoSubject(graph(), Bench.self) }, note: note)
  }
  return [
    workload(
      "deep", updates: 51, propagation, baseline: { DeepBaseline() }, graph: deepGraph,
      run: Deep.self),
    workload(
      "broad", updates: 51, propagation, baseline: { BroadBaseline() }, graph: broadGraph,
      run: Broad.self),
    workload(
      "diamond", updates: 501, propagation, baseline: { KairoDiamondBaseline() },
      graph: kairoDiamondGraph, run: KairoDiamond.self),
    workload(
      "triangle", updates: 101, propagation, baseline: { TriangleBaseline() },
      graph: triangleGraph, run: Triangle.self),
    workload(
      "mux", updates: 20, propagation, baseline: { MuxBaseline() }, graph: { MuxGraph() },
      run: Mux.self),
    workload(
      "repeatedObservers", updates: 101, dynamic, baseline: { RepeatedBaseline() },
      graph: repeatedGraph, run: Repeated.self),
    workload(
      "unstable", updates: 101, dynamic, baseline: { UnstableBaseline() },
      graph: unstableGraph, run: Unstable.self),
    workload(
      "avoidablePropagation", updates: 1001, .ratio(max: 3, label: "avoid."),
      note: "effect ran 0 times (checked)", baseline: { AvoidableBaseline() },
      graph: avoidableGraph, run: Avoidable.self),
  ]
}

// ------------------------------------------------------------ the graphs

/// Every kairo graph but mux: one head, written in a batch; the nodes a
/// shape's builder makes from it, counting their runs in `counter`; an
/// effect (`observe`) on each node the builder names, counting its runs and
/// then doing `effect`. `read` reports the builder's output node.
final class KairoGraph: KairoShape {
  typealias Nodes = (output: Computed<Int>, observed: [Computed<Int>])
  private let head = Stored(wrappedValue: 0)
  private let counter = Counter()
  private let effectCounter = Counter()
  private let output: Computed<Int>
  private var subscriptions: [StateGraphSubscription] = []
  var effects: Int { effectCounter.count }
  var recomputes: Int { counter.count }
  var effectSum = 0

  init(effect: @escaping @Sendable () -> Void = {}, _ build: (Stored<Int>, Counter) -> Nodes) {
    let nodes = build(head, counter)
    output = nodes.output
    let effectCounter = effectCounter
    subscriptions = nodes.observed.map { node in
      observe(node) { _ in
        effectCounter.count += 1
        effect()
      }
    }
    (counter.count, effectCounter.count) = (0, 0)
  }

  func write(_ value: Int, at _: Int) { withGraphBatch { head.wrappedValue = value } }
  func read(at _: Int) -> Int { output.wrappedValue }
}

// ------------------------------------------------------------ run() bodies

/// Checks the recompute and effect counts of one run().
private func checkCounts<Shape: KairoShape>(
  _ shape: Shape, since start: (recomputes: Int, effects: Int),
  recomputes: Int, effects: Int
) {
  Verify.equal(shape.recomputes - start.recomputes, recomputes, "computations in one run()")
  Verify.equal(shape.effects - start.effects, effects, "effect runs in one run()")
}

private let deepLength = 50
enum Deep: KairoBench {
  static func run<Shape: KairoShape>(_ s: Shape) -> Int {
    let start = (s.recomputes, s.effects)
    var sum = 0
    s.write(1, at: 0)
    let atLeast = s.effects
    for i in 0..<50 {
      s.write(i, at: 0)
      let value = s.read(at: 0)
      Verify.that(value == deepLength + i, "current = \(value), expected \(deepLength + i)")
      sum &+= value
    }
    Verify.equal(s.effects - atLeast, 50, "effect runs")
    checkCounts(s, since: start, recomputes: 51 * deepLength, effects: 51)
    return sum
  }
}

enum Broad: KairoBench {
  static func run<Shape: KairoShape>(_ s: Shape) -> Int {
    let start = (s.recomputes, s.effects)
    var sum = 0
    s.write(1, at: 0)
    let atLeast = s.effects
    for i in 0..<50 {
      s.write(i, at: 0)
      let value = s.read(at: 0)
      Verify.that(value == i + 50, "last = \(value), expected \(i + 50)")
      sum &+= value
    }
    Verify.equal(s.effects - atLeast, 50 * 50, "effect runs")
    checkCounts(s, since: start, recomputes: 51 * 100, effects: 51 * 50)
    return sum
  }
}

private let kairoDiamondWidth = 5
enum KairoDiamond: KairoBench {
  static func run<Shape: KairoShape>(_ s: Shape) -> Int {
    let start = (s.recomputes, s.effects)
    var sum = 0
    s.write(1, at: 0)
    Verify.equal(s.read(at: 0), 2 * kairoDiamondWidth, "sum after write(1)")
    let atLeast = s.effects
    for i in 0..<500 {
      s.write(i, at: 0)
      let value = s.read(at: 0)
      Verify.that(
        value == (i + 1) * kairoDiamondWidth, "sum = \(value), expected \((i + 1) * 5)")
      sum &+= value
    }
    Verify.equal(s.effects - atLeast, 500, "effect runs")
    checkCounts(s, since: start, recomputes: 501 * (kairoDiamondWidth + 1), effects: 501)
    return sum
  }
}

private let triangleWidth = 10
enum Triangle: KairoBench {
  static func run<Shape: KairoShape>(_ s: Shape) -> Int {
    let start = (s.recomputes, s.effects)
    let constant = triangleWidth * (triangleWidth + 1) / 2
    var sum = 0
    s.write(1, at: 0)
    Verify.equal(s.read(at: 0), constant, "sum after write(1)")
    let atLeast = s.effects
    for i in 0..<100 {
      s.write(i, at: 0)
      let value = s.read(at: 0)
      let expected = constant - triangleWidth + i * triangleWidth
      Verify.that(value == expected, "sum = \(value), expected \(expected)")
      sum &+= value
    }
    Verify.equal(s.effects - atLeast, 100, "effect runs")
    // per write: 9 chained computeds + the sum
    checkCounts(s, since: start, recomputes: 101 * triangleWidth, effects: 101)
    return sum
  }
}

enum Mux: KairoBench {
  static func run<Shape: KairoShape>(_ s: Shape) -> Int {
    let start = (s.recomputes, s.effects)
    var sum = 0
    s.effectSum = 0
    for i in 0..<10 {
      s.write(i, at: i)
      let value = s.read(at: i)
      Verify.that(value == i + 1, "splited[\(i)] = \(value), expected \(i + 1)")
      sum &+= value
    }
    Verify.equal(s.effectSum, 54, "effect sum after the first loop")
    s.effectSum = 0
    for i in 0..<10 {
      s.write(i * 2, at: i)
      let value = s.read(at: i)
      Verify.that(value == i * 2 + 1, "splited[\(i)] = \(value), expected \(i * 2 + 1)")
      sum &+= value
    }
    Verify.equal(s.effectSum, 99, "effect sum after the second loop")
    // heads[0] is written 0 over 0 twice: 18 real changes, each recomputing
    // mux, the 100 picks (99 cut off) and one +1.
    checkCounts(s, since: start, recomputes: 18 * 102, effects: 18)
    return sum
  }
}

private let repeatedSize = 30
enum Repeated: KairoBench {
  static func run<Shape: KairoShape>(_ s: Shape) -> Int {
    let start = (s.recomputes, s.effects)
    var sum = 0
    s.write(1, at: 0)
    Verify.equal(s.read(at: 0), repeatedSize, "current after write(1)")
    let atLeast = s.effects
    for i in 0..<100 {
      s.write(i, at: 0)
      let value = s.read(at: 0)
      Verify.that(value == i * repeatedSize, "current = \(value)")
      sum &+= value
    }
    Verify.equal(s.effects - atLeast, 100, "effect runs")
    checkCounts(s, since: start, recomputes: 101, effects: 101)
    return sum
  }
}

enum Unstable: KairoBench {
  static func run<Shape: KairoShape>(_ s: Shape) -> Int {
    let start = (s.recomputes, s.effects)
    var sum = 0
    s.write(1, at: 0)
    Verify.equal(s.read(at: 0), 40, "current after write(1)")
    let atLeast = s.effects
    for i in 0..<100 {
      s.write(i, at: 0)
      let value = s.read(at: 0)
      let expected = (i % 2 == 1 ? i * 2 : -i) * 20
      Verify.that(value == expected, "current = \(value), expected \(expected)")
      sum &+= value
    }
    Verify.equal(s.effects - atLeast, 100, "effect runs")
    // per write: current, and the one of double/inverse that it reads
    checkCounts(s, since: start, recomputes: 101 * 2, effects: 101)
    return sum
  }
}

enum Avoidable: KairoBench {
  static func run<Shape: KairoShape>(_ s: Shape) -> Int {
    let start = (s.recomputes, s.effects)
    var sum = 0
    s.write(1, at: 0)
    Verify.equal(s.read(at: 0), 6, "computed5 after write(1)")
    for i in 0..<1000 {
      s.write(i, at: 0)
      let value = s.read(at: 0)
      Verify.that(value == 6, "computed5 = \(value), expected 6")
      sum &+= value
    }
    // per write: computed1 and computed2; computed2 stays 0, so computed3..5
    // and the effect never run (equality cutoff).
    checkCounts(s, since: start, recomputes: 1001 * 2, effects: 0)
    return sum
  }
}

/// The "expensive" work avoidablePropagation guards: a loop the optimizer
/// cannot fold away.
@inline(never)
func busy() -> Int {
  var a = 0
  for i in 0..<100 { a &+= i & 1 | 1 }
  blackHole(a)
  return a
}

// ------------------------------------------------------------------ deep

final class DeepBaseline: KairoShape {
  final class Node {
    let source: Node?
    var value: Int
    init(_ source: Node?) { (self.source, self.value) = (source, (source?.value ?? -1) + 1) }
  }
  private let head = Node(nil)
  private var chain: [Node] = []
  private(set) var effects = 0, recomputes = 0
  var effectSum = 0

  init() {
    var last = head
    for _ in 0..<deepLength {
      last = Node(last)
      chain.append(last)
    }
  }

  func write(_ value: Int, at _: Int) {
    guard head.value != value else { return }
    head.value = value
    for node in chain {
      let new = node.source!.value + 1
      recomputes += 1
      if new == node.value { return }
      node.value = new
    }
    effects += 1  // effect: reads the tail
  }

  func read(at _: Int) -> Int { chain[chain.count - 1].value }
}

func deepGraph() -> KairoGraph {
  KairoGraph { head, counter in
    var last = Computed { _ in
      counter.count += 1
      return head.wrappedValue + 1
    }
    for _ in 1..<deepLength {
      let previous = last
      last = Computed { _ in
        counter.count += 1
        return previous.wrappedValue + 1
      }
    }
    return (last, [last])
  }
}

// ----------------------------------------------------------------- broad

final class BroadBaseline: KairoShape {
  final class Branch {
    let offset: Int
    var first: Int, second: Int
    init(offset: Int) { (self.offset, first, second) = (offset, offset, offset + 1) }
  }
  private var head = 0
  private var branches: [Branch] = []
  private(set) var effects = 0, recomputes = 0
  var effectSum = 0

  init() { branches = (0..<50).map { Branch(offset: $0) } }

  func write(_ value: Int, at _: Int) {
    guard head != value else { return }
    head = value
    for branch in branches {
      let first = head + branch.offset
      recomputes += 1
      guard first != branch.first else { continue }
      branch.first = first
      let second = first + 1
      recomputes += 1
      guard second != branch.second else { continue }
      branch.second = second
      effects += 1
    }
  }

  func read(at _: Int) -> Int { branches[branches.count - 1].second }
}

func broadGraph() -> KairoGraph {
  KairoGraph { head, counter in
    let seconds = (0..<50).map { offset in
      let first = Computed { _ in
        counter.count += 1
        return head.wrappedValue + offset
      }
      return Computed { _ in
        counter.count += 1
        return first.wrappedValue + 1
      }
    }
    return (seconds[seconds.count - 1], seconds)
  }
}

// --------------------------------------------------------------- diamond

final class KairoDiamondBaseline: KairoShape {
  final class Branch { var value = 1 }
  private var head = 0
  private let branches = (0..<kairoDiamondWidth).map { _ in Branch() }
  private var sum = kairoDiamondWidth
  private(set) var effects = 0, recomputes = 0
  var effectSum = 0

  func write(_ value: Int, at _: Int) {
    guard head != value else { return }
    head = value
    var changed = false
    for branch in branches {
      let new = head + 1
      recomputes += 1
      if new != branch.value {
        branch.value = new
        changed = true
      }
    }
    guard changed else { return }
    var total = 0
    for branch in branches { total &+= branch.value }
    recomputes += 1
    guard total != sum else { return }
    sum = total
    effects += 1
  }

  func read(at _: Int) -> Int { sum }
}

func kairoDiamondGraph() -> KairoGraph {
  KairoGraph { head, counter in
    let branches = (0..<kairoDiamondWidth).map { _ in
      Computed { _ in
        counter.count += 1
        return head.wrappedValue + 1
      }
    }
    let sum = Computed { _ in
      counter.count += 1
      var total = 0
      for branch in branches { total &+= branch.wrappedValue }
      return total
    }
    return (sum, [sum])
  }
}

// -------------------------------------------------------------- triangle

final class TriangleBaseline: KairoShape {
  /// list[0] is the head, list[k] = list[k - 1] + 1.
  private var list = [Int](0..<triangleWidth)
  private var sum = triangleWidth * (triangleWidth - 1) / 2
  private(set) var effects = 0, recomputes = 0
  var effectSum = 0

  func write(_ value: Int, at _: Int) {
    guard list[0] != value else { return }
    list[0] = value
    for k in 1..<triangleWidth {
      list[k] = list[k - 1] + 1
      recomputes += 1
    }
    var total = 0
    for value in list { total &+= value }
    recomputes += 1
    guard total != sum else { return }
    sum = total
    effects += 1
  }

  func read(at _: Int) -> Int { sum }
}

func triangleGraph() -> KairoGraph {
  KairoGraph { head, counter in
    // list = [head, c1 ... c9], c_k = c_(k-1) + 1
    var chain: [Computed<Int>] = [
      Computed { _ in
        counter.count += 1
        return head.wrappedValue + 1
      }
    ]
    for _ in 2..<triangleWidth {
      let previous = chain[chain.count - 1]
      chain.append(
        Computed { _ in
          counter.count += 1
          return previous.wrappedValue + 1
        })
    }
    let members = chain
    let sum = Computed { _ in
      counter.count += 1
      var total = head.wrappedValue
      for member in members { total &+= member.wrappedValue }
      return total
    }
    return (sum, [sum])
  }
}

// ------------------------------------------------------------------- mux

private let muxWidth = 100

final class MuxBaseline: KairoShape {
  final class Head { var value = 0 }
  private let heads = (0..<muxWidth).map { _ in Head() }
  private var mux = [Int](repeating: 0, count: muxWidth)
  private var picks = [Int](repeating: 0, count: muxWidth)
  private var plusOne = [Int](repeating: 1, count: muxWidth)
  private(set) var effects = 0, recomputes = 0
  var effectSum = 0

  func write(_ value: Int, at index: Int) {
    guard heads[index].value != value else { return }
    heads[index].value = value
    mux = heads.map { $0.value }  // a new record, as the JS version builds
    recomputes += 1
    for k in 0..<muxWidth {
      let pick = mux[k]
      recomputes += 1
      guard pick != picks[k] else { continue }
      picks[k] = pick
      plusOne[k] = pick + 1
      recomputes += 1
      effects += 1
      effectSum += plusOne[k]
    }
  }

  func read(at index: Int) -> Int { plusOne[index] }
}

final class MuxGraph: KairoShape {
  private let heads = (0..<muxWidth).map { _ in Stored(wrappedValue: 0) }
  private var plusOne: [Computed<Int>] = []
  private let counter = Counter()
  private let effectCounter = Counter()
  private let sumBox = Counter()
  private var subscriptions: [StateGraphSubscription] = []
  var effects: Int { effectCounter.count }
  var recomputes: Int { counter.count }
  var effectSum: Int {
    get { sumBox.count }
    set { sumBox.count = newValue }
  }

  init() {
    let (heads, counter, effectCounter, sumBox) = (
      self.heads, self.counter, self.effectCounter, self.sumBox
    )
    let mux = Computed { _ in
      counter.count += 1
      return heads.map { $0.wrappedValue }
    }
    plusOne = (0..<muxWidth).map { index in
      let pick = Computed { _ in
        counter.count += 1
        return mux.wrappedValue[index]
      }
      return Computed { _ in
        counter.count += 1
        return pick.wrappedValue + 1
      }
    }
    for node in plusOne {
      subscriptions.append(
        observe(node) { value in
          effectCounter.count += 1
          sumBox.count += value
        })
    }
    (counter.count, effectCounter.count) = (0, 0)
  }

  func write(_ value: Int, at index: Int) { withGraphBatch { heads[index].wrappedValue = value } }
  func read(at index: Int) -> Int { plusOne[index].wrappedValue }
}

// ----------------------------------------------------- repeatedObservers

final class RepeatedBaseline: KairoShape {
  final class Head { var value = 0 }
  private let head = Head()
  private var current = 0
  private(set) var effects = 0, recomputes = 0
  var effectSum = 0

  func write(_ value: Int, at _: Int) {
    guard head.value != value else { return }
    head.value = value
    var result = 0
    for _ in 0..<repeatedSize { result &+= head.value }
    recomputes += 1
    guard result != current else { return }
    current = result
    effects += 1
  }

  func read(at _: Int) -> Int { current }
}

func repeatedGraph() -> KairoGraph {
  KairoGraph { head, counter in
    let current = Computed { _ in
      counter.count += 1
      var result = 0
      for _ in 0..<repeatedSize { result &+= head.wrappedValue }
      return result
    }
    return (current, [current])
  }
}

// -------------------------------------------------------------- unstable

final class UnstableBaseline: KairoShape {
  private var head = 0
  private var double = 0, inverse = 0
  private var current = 0
  private(set) var effects = 0, recomputes = 0
  var effectSum = 0

  func write(_ value: Int, at _: Int) {
    guard head != value else { return }
    head = value
    // Only the branch current reads this time is brought up to date.
    let odd = head % 2 != 0
    if odd {
      double = head * 2
    } else {
      inverse = -head
    }
    recomputes += 1
    var result = 0
    for _ in 0..<20 { result &+= odd ? double : inverse }
    recomputes += 1
    guard result != current else { return }
    current = result
    effects += 1
  }

  func read(at _: Int) -> Int { current }
}

func unstableGraph() -> KairoGraph {
  KairoGraph { head, counter in
    let double = Computed { _ in
      counter.count += 1
      return head.wrappedValue * 2
    }
    let inverse = Computed { _ in
      counter.count += 1
      return -head.wrappedValue
    }
    let current = Computed { _ in
      counter.count += 1
      var result = 0
      for _ in 0..<20 {
        result &+= head.wrappedValue % 2 != 0 ? double.wrappedValue : inverse.wrappedValue
      }
      return result
    }
    return (current, [current])
  }
}

// -------------------------------------------------- avoidablePropagation

final class AvoidableBaseline: KairoShape {
  private var head = 0
  private var computed1 = 0, computed2 = 0
  private var computed5 = 6
  private(set) var effects = 0, recomputes = 0
  var effectSum = 0

  func write(_ value: Int, at _: Int) {
    guard head != value else { return }
    head = value
    computed1 = head
    recomputes += 1
    let new = computed1 * 0  // computed2: reads computed1, yields 0
    recomputes += 1
    guard new != computed2 else { return }  // always taken: nothing below runs
    computed2 = new
    computed5 = busy() * 0 + computed2 + 1 + 2 + 3
    recomputes += 3
    effects += 1
    blackHole(busy())
  }

  func read(at _: Int) -> Int { computed5 }
}

func avoidableGraph() -> KairoGraph {
  KairoGraph(effect: { blackHole(busy()) }) { head, counter in
    let computed1 = Computed { _ in
      counter.count += 1
      return head.wrappedValue
    }
    let computed2 = Computed { _ in
      counter.count += 1
      return computed1.wrappedValue * 0
    }
    let computed3 = Computed { _ in
      counter.count += 1
      return busy() * 0 + computed2.wrappedValue + 1
    }
    let computed4 = Computed { _ in
      counter.count += 1
      return computed3.wrappedValue + 2
    }
    let computed5 = Computed { _ in
      counter.count += 1
      return computed4.wrappedValue + 3
    }
    return (computed5, [computed5])
  }
}
