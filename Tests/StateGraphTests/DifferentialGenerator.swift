/// Random differential cases. SplitMix64 rather than the system generator:
/// the same seed must give the same case on every platform and Swift version,
/// or a printed seed would not reproduce anything.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Builds a case the way a program grows a graph: a few stored and computed
/// nodes first, then a random mix of writes, reads, batches (some throwing,
/// some nested), new nodes, dropped nodes and subscriptions. Sizes are small
/// on purpose: small graphs with small values hit equal values, shared
/// upstream nodes and branch flips far more often than big ones.
struct DifferentialGenerator {
  private var rng: SplitMix64
  private var stored: [Int] = []  // held by the case, by id
  private var computed: [Int] = []
  private var subscriptions: [Int] = []
  private var nextNode = 0
  private var nextSubscription = 0

  static func makeCase(seed: UInt64) -> DifferentialCase {
    var generator = DifferentialGenerator(rng: SplitMix64(seed: seed))
    return DifferentialCase(seed: seed, ops: generator.makeOps())
  }

  private init(rng: SplitMix64) { self.rng = rng }

  private mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
  private mutating func chance(_ percent: Int) -> Bool { int(1...100) <= percent }

  private mutating func makeOps() -> [DifferentialOp] {
    var ops: [DifferentialOp] = []
    for _ in 0..<int(2...4) { ops.append(addStored()) }
    for _ in 0..<int(2...5) { ops.append(addComputed()) }
    for _ in 0..<int(8...24) { ops.append(randomOp(depth: 0)) }
    ops.append(.readAll)
    return ops
  }

  private mutating func randomOp(depth: Int) -> DifferentialOp {
    let roll = int(1...100)
    switch roll {
    case 1...28: return write()
    case 29...46: return read()
    case 47...58 where depth < 2: return batch(depth: depth + 1)
    case 47...52: return write()
    case 53...58: return read()
    case 59...62: return addStored()
    case 63...71: return addComputed()
    case 72...78: return drop()
    case 79...88: return subscribe()
    case 89...94: return cancel()
    default: return .readAll
    }
  }

  private mutating func addStored() -> DifferentialOp {
    let id = nextNode
    nextNode += 1
    stored.append(id)
    return .addStored(id: id, value: int(0...4))
  }

  private mutating func addComputed() -> DifferentialOp {
    let id = nextNode
    nextNode += 1
    let op = DifferentialOp.addComputed(
      id: id, expr: expression(depth: 0), placeholder: chance(20) ? int(0...4) : nil)
    computed.append(id)
    return op
  }

  private mutating func anyNode() -> Int? {
    let all = stored + computed
    return all.isEmpty ? nil : all[int(0...all.count - 1)]
  }

  private mutating func write() -> DifferentialOp {
    guard !stored.isEmpty else { return read() }
    // Values 0...4 over a handful of nodes: many writes are of the current
    // value (no change at all) or flip a branch back and forth.
    return .write(id: stored[int(0...stored.count - 1)], value: int(0...4))
  }

  private mutating func read() -> DifferentialOp {
    guard let id = anyNode() else { return .readAll }
    return .read(id: id)
  }

  private mutating func drop() -> DifferentialOp {
    guard let id = anyNode() else { return .readAll }
    stored.removeAll { $0 == id }
    computed.removeAll { $0 == id }
    return .drop(id: id)
  }

  private mutating func subscribe() -> DifferentialOp {
    let id = nextSubscription
    nextSubscription += 1
    subscriptions.append(id)
    let roll = int(1...3)
    if roll < 3, let node = anyNode() {
      return .subscribe(id: id, roll == 1 ? .distinct(node) : .all(node))
    }
    return .subscribe(id: id, .group(expression(depth: 0)))
  }

  private mutating func cancel() -> DifferentialOp {
    guard !subscriptions.isEmpty else { return read() }
    return .cancel(id: subscriptions.remove(at: int(0...subscriptions.count - 1)))
  }

  private mutating func batch(depth: Int) -> DifferentialOp {
    var inner: [DifferentialOp] = []
    for _ in 0..<int(1...6) { inner.append(randomOp(depth: depth)) }
    return .batch(inner, throws: chance(40))
  }

  /// Leaves are mostly reads of held nodes, so formulas depend on earlier
  /// nodes (the graph is a DAG by construction); branches make the reads
  /// conditional.
  private mutating func expression(depth: Int) -> DifferentialExpr {
    if depth >= 3 || chance(depth == 0 ? 10 : 40) { return leaf() }
    switch int(1...10) {
    case 1...3: return .sum(expression(depth: depth + 1), expression(depth: depth + 1))
    case 4: return .product(expression(depth: depth + 1), expression(depth: depth + 1))
    case 5...6: return .modulo(expression(depth: depth + 1), int(2...3))
    default:
      return .branch(
        leafRead(), int(0...3), expression(depth: depth + 1), expression(depth: depth + 1))
    }
  }

  private mutating func leaf() -> DifferentialExpr {
    chance(80) ? leafRead() : .constant(int(0...4))
  }

  private mutating func leafRead() -> DifferentialExpr {
    guard let id = anyNode() else { return .constant(int(0...4)) }
    return .read(id)
  }
}
