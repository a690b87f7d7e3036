/// The reference model the differential test compares the library with.
///
/// It has two halves, on purpose of different strength:
///
/// - Values come from scratch: `scratchValue` evaluates a node's formula over
///   the current stored values, recursively, with nothing cached between
///   calls. It is the definition of a right answer, too simple to share a bug
///   with the library. Observers that filter `.distinct` are checked against
///   it as well: after each outermost write or batch an observer must have
///   been handed the new value exactly when it differs from the last one.
///
/// - Closure runs come from the documented evaluation rule, written as
///   plainly as possible (recursion, arrays, no marking): a computed node runs
///   when it is read (directly, by a dependent's run or verification, or by
///   an observer) and it never ran, or a source it read in its last run —
///   verified in read order, each brought up to date first — has a different
///   version from the one it saw. A version stands for one value a node had:
///   a stored node gets a new one per write of a different value, a computed
///   node per run that produced a different value (equality cutoff) and on
///   its first run. A node therefore runs at most once per read after a
///   change and never when none of its sources changed; sources read before
///   the first changed one are brought up to date, later ones only if the
///   new run reads them. Observers (effects) follow the same rule.
///
/// Rollback (a throwing `withGraphBatch`) follows the transaction log the
/// wrapper documents: the first change of each node inside the batch is
/// recorded (value and version) and restored, newest first; a restored
/// computed node cannot know whether its restored value matches what its
/// sources hold now (its last run read them mid-batch), so its next read
/// runs it again, and the cutoff keeps its dependents quiet when the value
/// is the restored one. Versions are never reused after a rollback: a new
/// change gets a version the node never had. A stored node made inside a batch
/// is outside its undo until the outermost batch ends: its changes are not
/// logged, so no rollback restores them.
final class DifferentialModel {
  enum Kind {
    case stored
    case computed(DifferentialExpr)
  }

  struct Node {
    let kind: Kind
    /// Stored: the value. Computed: the cached value (the placeholder until
    /// the first run, nil without one).
    var value: Int?
    var version = 0
    var lastVersion = 0
    var hasRun = false
    /// Rolled back: must run at its next read.
    var mustRun = false
    var sources: [(id: Int, seen: Int)] = []
    var runs = 0
    var held = true
    let inputs: [Int]
  }

  struct Subscription {
    let kind: DifferentialSubscription
    var sources: [(id: Int, seen: Int)] = []
    var hasRun = false
    /// What the run model says the handler received, in order.
    var delivered: [Int] = []
    /// For `.distinct`: what the from-scratch model says it received.
    var deliveredByScratch: [Int] = []
  }

  private struct LogEntry {
    let id: Int
    let value: Int?
    let version: Int
  }

  private(set) var nodes: [Int: Node] = [:]
  private(set) var subscriptions: [Int: Subscription] = [:]
  /// One log per open batch, innermost last.
  private var logs: [[LogEntry]] = []

  var batchDepth: Int { logs.count }
  /// Stored nodes made since the outermost open batch began.
  private var madeInside: Set<Int> = []

  // MARK: - from scratch

  /// The value the semantics define: the formula over the current stored
  /// values. The memo lives for one call only (it keeps diamonds linear).
  func scratchValue(_ id: Int) -> Int {
    var memo: [Int: Int] = [:]
    func evaluate(_ id: Int) -> Int {
      if let known = memo[id] { return known }
      let node = nodes[id]!
      let value: Int
      switch node.kind {
      case .stored: value = node.value!
      case .computed(let expr): value = expr.evaluate(evaluate)
      }
      memo[id] = value
      return value
    }
    return evaluate(id)
  }

  // MARK: - operations

  func addStored(_ id: Int, value: Int) {
    nodes[id] = Node(kind: .stored, value: value, inputs: [])
    if !logs.isEmpty { madeInside.insert(id) }
  }

  func addComputed(_ id: Int, expr: DifferentialExpr, placeholder: Int?) {
    nodes[id] = Node(kind: .computed(expr), value: placeholder, inputs: expr.inputs)
  }

  /// Brings a node up to date and returns its value, as a read does.
  func read(_ id: Int) -> Int {
    refresh(id)
    return nodes[id]!.value!
  }

  func write(_ id: Int, value: Int) {
    guard nodes[id]!.value != value else { return }  // the wrapper's equality
    record(id)
    nodes[id]!.value = value
    newVersion(id)
    if logs.isEmpty { flush() }
  }

  func drop(_ id: Int) { nodes[id]?.held = false }

  func subscribe(_ id: Int, _ kind: DifferentialSubscription) {
    subscriptions[id] = Subscription(kind: kind)
    runEffect(id)  // an effect runs once when created, also inside a batch
    if case .distinct(let node) = kind {
      subscriptions[id]!.deliveredByScratch.append(scratchValue(node))
    }
  }

  func cancel(_ id: Int) { subscriptions[id] = nil }

  func beginBatch() { logs.append([]) }

  func endBatch(throwing: Bool) {
    let log = logs.removeLast()
    if throwing {
      for entry in log.reversed() {
        nodes[entry.id]!.value = entry.value
        nodes[entry.id]!.version = entry.version
        if case .computed = nodes[entry.id]!.kind { nodes[entry.id]!.mustRun = true }
      }
    } else if !logs.isEmpty {
      // The enclosing batch keeps its own, older, entry for a node.
      for entry in log where !logs[logs.count - 1].contains(where: { $0.id == entry.id }) {
        logs[logs.count - 1].append(entry)
      }
    }
    if logs.isEmpty {
      madeInside = []
      flush()
    }
  }

  /// Nodes that must still exist: those the test holds, those a live
  /// subscription captured, and everything a live computed node's closure
  /// captured (all inputs of its formula, both branches).
  func aliveNodes() -> Set<Int> {
    var alive: Set<Int> = []
    var pending = nodes.filter { $0.value.held }.map(\.key)
    for subscription in subscriptions.values { pending += subscription.kind.inputs }
    while let id = pending.popLast() {
      guard alive.insert(id).inserted else { continue }
      pending += nodes[id]!.inputs
    }
    return alive
  }

  // MARK: - the run model

  private func newVersion(_ id: Int) {
    nodes[id]!.lastVersion += 1
    nodes[id]!.version = nodes[id]!.lastVersion
  }

  /// The first change of a node inside the innermost batch is logged.
  private func record(_ id: Int) {
    guard !logs.isEmpty, !madeInside.contains(id),
      !logs[logs.count - 1].contains(where: { $0.id == id })
    else { return }
    let node = nodes[id]!
    logs[logs.count - 1].append(LogEntry(id: id, value: node.value, version: node.version))
  }

  private func refresh(_ id: Int) {
    let node = nodes[id]!
    guard case .computed = node.kind else { return }
    if !node.hasRun || node.mustRun { return run(id) }
    for source in node.sources {
      refresh(source.id)
      if nodes[source.id]!.version != source.seen { return run(id) }
    }
  }

  /// Evaluates `expr`, bringing each node it reads up to date first, and
  /// returns the value with the sources read (each once, in first-read order).
  private func evaluateTracking(_ expr: DifferentialExpr) -> (Int, [(id: Int, seen: Int)]) {
    var sources: [(id: Int, seen: Int)] = []
    let value = expr.evaluate { source in
      refresh(source)
      if !sources.contains(where: { $0.id == source }) {
        sources.append((source, nodes[source]!.version))
      }
      return nodes[source]!.value!
    }
    return (value, sources)
  }

  private func run(_ id: Int) {
    guard case .computed(let expr) = nodes[id]!.kind else { return }
    nodes[id]!.runs += 1
    let (value, sources) = evaluateTracking(expr)
    let old = nodes[id]!.value
    let changed = old != value
    if changed {
      if old != nil { record(id) }  // the wrapper logs a change of a cached value
      nodes[id]!.value = value
    }
    if changed || !nodes[id]!.hasRun { newVersion(id) }
    nodes[id]!.hasRun = true
    nodes[id]!.mustRun = false
    nodes[id]!.sources = sources
  }

  /// After an outermost write or batch: every observer whose sources changed
  /// runs once. Creation order; the set of runs does not depend on it.
  private func flush() {
    for id in subscriptions.keys.sorted() {
      verifyEffect(id)
      if case .distinct(let node) = subscriptions[id]!.kind {
        let value = scratchValue(node)
        if subscriptions[id]!.deliveredByScratch.last != value {
          subscriptions[id]!.deliveredByScratch.append(value)
        }
      }
    }
  }

  private func verifyEffect(_ id: Int) {
    for source in subscriptions[id]!.sources {
      refresh(source.id)
      if nodes[source.id]!.version != source.seen { return runEffect(id) }
    }
  }

  private func runEffect(_ id: Int) {
    let kind = subscriptions[id]!.kind
    let expr: DifferentialExpr
    switch kind {
    case .distinct(let node), .all(let node): expr = .read(node)
    case .group(let body): expr = body
    }
    let (value, sources) = evaluateTracking(expr)
    subscriptions[id]!.sources = sources
    subscriptions[id]!.hasRun = true
    if case .distinct = kind, subscriptions[id]!.delivered.last == value { return }
    subscriptions[id]!.delivered.append(value)
  }
}
