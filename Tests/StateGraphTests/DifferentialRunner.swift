import Foundation

@testable import StateGraph

/// Why a case failed: the step (leaf operations executed, counting from 1)
/// and what disagreed.
struct DifferentialFailure: Error, CustomStringConvertible {
  let step: Int
  let message: String

  var description: String { "step \(step): \(message)" }
}

/// Drives the library and the model with the same operations and compares
/// them after every step:
///
/// - every value read equals the from-scratch value;
/// - every computed closure ran exactly as often as the run model says (and
///   no node ran twice in one step, whatever the model says);
/// - every observer received exactly the values the run model says, and
///   `.distinct` observers exactly the distinct values the from-scratch model
///   says, once per outermost write or batch;
/// - outside batches, exactly the nodes that something still references are
///   alive (weak references), and when the case ends nothing is.
final class DifferentialRunner {
  /// A node the test holds. The enum is what closures capture, so a closure
  /// keeps its inputs alive exactly as a user's closure would.
  enum LibraryNode: Sendable {
    case stored(Stored<Int>)
    case computed(Computed<Int>)

    var value: Int {
      switch self {
      case .stored(let node): return node.wrappedValue
      case .computed(let node): return node.wrappedValue
      }
    }

    var object: AnyObject {
      switch self {
      case .stored(let node): return node
      case .computed(let node): return node
      }
    }
  }

  final class WeakReference {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
  }

  /// The error a throwing batch of the case throws.
  struct Rollback: Error {}

  private let model = DifferentialModel()
  private var held: [Int: LibraryNode] = [:]
  private var references: [Int: WeakReference] = [:]
  private var runs: [Int: Counter] = [:]
  private var runsBefore: [Int: Int] = [:]
  private var subscriptions: [Int: (subscription: StateGraphSubscription, values: Recorder<Int>)] =
    [:]
  private var step = 0
  private let trace: Bool

  init(trace: Bool = false) { self.trace = trace }

  /// Runs the case; nil when the library and the model agreed throughout.
  static func run(_ testCase: DifferentialCase, trace: Bool = false) -> DifferentialFailure? {
    let runner = DifferentialRunner(trace: trace)
    do {
      for op in testCase.ops { try runner.perform(op) }
      try runner.finish()
      return nil
    } catch let failure as DifferentialFailure {
      runner.abandon()
      return failure
    } catch {
      runner.abandon()
      return DifferentialFailure(step: runner.step, message: "unexpected error \(error)")
    }
  }

  private func fail(_ message: String) -> DifferentialFailure {
    DifferentialFailure(step: step, message: message)
  }

  // MARK: - operations

  private func perform(_ op: DifferentialOp) throws {
    if case .batch(let ops, let throwing) = op {
      return try batch(ops, throwing: throwing)
    }
    step += 1
    if trace { print("  step \(step) (batch depth \(model.batchDepth)): \(op)") }
    switch op {
    case .addStored(let id, let value):
      let node = Stored(name: "n\(id)", wrappedValue: value)
      adopt(id, .stored(node))
      model.addStored(id, value: value)
    case .addComputed(let id, let expr, let placeholder):
      guard let inputs = heldNodes(expr.inputs) else { return }
      let counter = Counter()
      let compute: @Sendable (GraphContext) -> Int = { _ in
        counter.tick()
        return expr.evaluate { inputs[$0]!.value }
      }
      let node =
        placeholder.map { Computed(wrappedValue: $0, name: "n\(id)", compute) }
        ?? Computed(name: "n\(id)", compute)
      runs[id] = counter
      adopt(id, .computed(node))
      model.addComputed(id, expr: expr, placeholder: placeholder)
    case .write(let id, let value):
      guard case .stored(let node) = held[id] else { return }
      node.wrappedValue = value
      model.write(id, value: value)
    case .read(let id):
      try read(id)
    case .readAll:
      for id in held.keys.sorted() { try read(id) }
    case .drop(let id):
      guard held.removeValue(forKey: id) != nil else { return }
      model.drop(id)
    case .subscribe(let id, let kind):
      try subscribe(id, kind)
    case .cancel(let id):
      guard let entry = subscriptions.removeValue(forKey: id) else { return }
      entry.subscription.cancel()
      model.cancel(id)
    case .batch:
      break
    }
    try check()
  }

  private func adopt(_ id: Int, _ node: LibraryNode) {
    held[id] = node
    references[id] = WeakReference(node.object)
  }

  /// The nodes a new closure captures; nil when the case no longer holds one
  /// of them (the shrinker removed its creation): the operation is skipped.
  private func heldNodes(_ ids: [Int]) -> [Int: LibraryNode]? {
    var nodes: [Int: LibraryNode] = [:]
    for id in ids {
      guard let node = held[id] else { return nil }
      nodes[id] = node
    }
    return nodes
  }

  private func read(_ id: Int) throws {
    guard let node = held[id] else { return }
    let value = node.value
    let expected = model.scratchValue(id)
    if value != expected {
      throw fail("read n\(id) = \(value), from scratch \(expected)")
    }
    let modelled = model.read(id)
    if modelled != expected {
      throw fail("model bug: run model has n\(id) = \(modelled), from scratch \(expected)")
    }
  }

  private func subscribe(_ id: Int, _ kind: DifferentialSubscription) throws {
    guard let inputs = heldNodes(kind.inputs) else { return }
    let values = Recorder<Int>()
    let subscription: StateGraphSubscription
    switch kind {
    case .distinct(let node):
      subscription = withGraphTracking {
        switch inputs[node]! {
        case .stored(let stored): stored.onChange { values.append($0) }
        case .computed(let computed): computed.onChange { values.append($0) }
        }
      }
    case .all(let node):
      subscription = withGraphTracking {
        switch inputs[node]! {
        case .stored(let stored): stored.onChange(filter: PassthroughFilter()) { values.append($0) }
        case .computed(let computed): computed.onChange(filter: PassthroughFilter()) { values.append($0) }
        }
      }
    case .group(let expr):
      // Synchronous delivery: the model runs a group once per outermost
      // write or batch that changed what it read, within that write. (With
      // the default delivery the runs of quick writes merge; the tracking
      // suites check that.)
      subscription = withGraphTracking(delivery: .synchronous) {
        withGraphTrackingGroup { values.append(expr.evaluate { inputs[$0]!.value }) }
      }
    }
    subscriptions[id] = (subscription, values)
    model.subscribe(id, kind)
  }

  private func batch(_ ops: [DifferentialOp], throwing: Bool) throws {
    model.beginBatch()
    do {
      try withGraphBatch {
        for op in ops { try perform(op) }
        if throwing { throw Rollback() }
      }
    } catch is Rollback {
    }
    model.endBatch(throwing: throwing)
    step += 1
    if trace { print("  step \(step): end of batch\(throwing ? " (threw)" : "")") }
    try check()
  }

  // MARK: - checks

  private func check() throws {
    for id in runs.keys.sorted() {
      let actual = runs[id]!.value
      let expected = model.nodes[id]!.runs
      if actual != expected {
        throw fail("n\(id)'s closure ran \(actual) times in all, the model says \(expected)")
      }
      if actual - runsBefore[id, default: 0] > 1 {
        throw fail("n\(id)'s closure ran \(actual - runsBefore[id, default: 0]) times in one step")
      }
      runsBefore[id] = actual
    }
    for id in subscriptions.keys.sorted() {
      let received = subscriptions[id]!.values.values
      let modelled = model.subscriptions[id]!
      if received != modelled.delivered {
        throw fail(
          "s\(id) (\(modelled.kind)) received \(received), the model says \(modelled.delivered)")
      }
      if case .distinct = modelled.kind, modelled.deliveredByScratch != modelled.delivered {
        throw fail(
          "model bug: s\(id) distinct values from scratch \(modelled.deliveredByScratch), run model \(modelled.delivered)"
        )
      }
    }
    // Inside a batch the transaction log keeps the nodes it changed alive.
    if model.batchDepth == 0 { try checkLifetimes() }
  }

  private func checkLifetimes() throws {
    let alive = model.aliveNodes()
    for id in references.keys.sorted() where references[id]!.object == nil && alive.contains(id) {
      throw fail("n\(id) was freed although something references it")
    }
    try expectFreed(references.keys.filter { !alive.contains($0) })
  }

  /// Lets go of everything, checking that it all goes away.
  private func finish() throws {
    abandon()
    step += 1
    try expectFreed(Array(references.keys))
  }

  /// The nodes must be gone. Another test taking a snapshot of the (shared)
  /// graph may hold a node for a moment, and its destroy callback, which
  /// lets go of what the closure captured, then runs on that test's thread
  /// when it is done: so a node still alive gets a short grace period; a
  /// real leak outlasts it.
  private func expectFreed(_ ids: [Int]) throws {
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(2)
    for id in ids.sorted() {
      while references[id]!.object != nil {
        if clock.now > deadline {
          throw fail("n\(id) is still alive although nothing references it (leak)")
        }
        Thread.sleep(forTimeInterval: 0.001)
      }
    }
  }

  private func abandon() {
    for entry in subscriptions.values { entry.subscription.cancel() }
    subscriptions = [:]
    held = [:]
  }
}
