/// The data of one differential test case: a graph built up by operations,
/// and the operations themselves. A case is plain data so that it can be
/// replayed, shrunk (operations removed) and printed as a reproduction.
///
/// Node and subscription ids are assigned by the generator in creation order.
/// An operation that names a node the case no longer holds (because the
/// shrinker removed the operation that created it, say) is skipped by the
/// runner, so every sub-list of operations is still a valid case.

/// A computed node's formula: a small expression over other nodes. Values stay
/// small (0..<8) so that different inputs often give equal results and the
/// equality cutoff is exercised all the time.
indirect enum DifferentialExpr: Hashable, Sendable {
  case read(Int)
  case constant(Int)
  case sum(DifferentialExpr, DifferentialExpr)
  case product(DifferentialExpr, DifferentialExpr)
  case modulo(DifferentialExpr, Int)
  /// `condition > threshold ? then : otherwise`: a conditional read, so the
  /// dependencies of a node change from run to run.
  case branch(DifferentialExpr, Int, DifferentialExpr, DifferentialExpr)

  /// Evaluates left to right, calling `read` for every node read, in order.
  /// The library's closures, the from-scratch model and the run model all
  /// evaluate through this one function, so they read in the same order.
  func evaluate(_ read: (Int) -> Int) -> Int {
    switch self {
    case .read(let id): return read(id)
    case .constant(let value): return value
    case .sum(let a, let b):
      let left = a.evaluate(read)
      return (left + b.evaluate(read)) % 8
    case .product(let a, let b):
      let left = a.evaluate(read)
      return (left * b.evaluate(read)) % 8
    case .modulo(let a, let m): return a.evaluate(read) % m
    case .branch(let condition, let threshold, let then, let otherwise):
      return condition.evaluate(read) > threshold ? then.evaluate(read) : otherwise.evaluate(read)
    }
  }

  /// Every node the expression may read (both branches), each once, in order:
  /// what a closure over it captures.
  var inputs: [Int] {
    var seen: [Int] = []
    collect(into: &seen)
    return seen
  }

  private func collect(into seen: inout [Int]) {
    switch self {
    case .read(let id): if !seen.contains(id) { seen.append(id) }
    case .constant: break
    case .sum(let a, let b), .product(let a, let b):
      a.collect(into: &seen)
      b.collect(into: &seen)
    case .modulo(let a, _): a.collect(into: &seen)
    case .branch(let condition, _, let then, let otherwise):
      condition.collect(into: &seen)
      then.collect(into: &seen)
      otherwise.collect(into: &seen)
    }
  }
}

extension DifferentialExpr: CustomStringConvertible {
  var description: String {
    switch self {
    case .read(let id): return "n\(id)"
    case .constant(let value): return "\(value)"
    case .sum(let a, let b): return "(\(a) + \(b)) % 8"
    case .product(let a, let b): return "(\(a) * \(b)) % 8"
    case .modulo(let a, let m): return "\(a) % \(m)"
    case .branch(let c, let k, let t, let e): return "(\(c) > \(k) ? \(t) : \(e))"
    }
  }
}

/// What a subscription observes.
enum DifferentialSubscription: Hashable, Sendable {
  /// `node.onChange { }`: Int is Equatable, so it passes what a `DistinctFilter` does.
  case distinct(Int)
  /// `node.onChange(filter: PassthroughFilter()) { }`: every run of the effect delivers.
  case all(Int)
  /// `withGraphTrackingGroup { record(expr) }`: the body reads what the
  /// expression reads and records its value on every run.
  case group(DifferentialExpr)

  var inputs: [Int] {
    switch self {
    case .distinct(let id), .all(let id): return [id]
    case .group(let expr): return expr.inputs
    }
  }
}

indirect enum DifferentialOp: Hashable, Sendable {
  case addStored(id: Int, value: Int)
  /// `placeholder`: created with `Computed(wrappedValue:)`.
  case addComputed(id: Int, expr: DifferentialExpr, placeholder: Int?)
  case write(id: Int, value: Int)
  case read(id: Int)
  /// Reads every node the case holds, in id order.
  case readAll
  /// The test lets go of its reference; closures and subscriptions that
  /// captured the node keep it alive.
  case drop(id: Int)
  case subscribe(id: Int, DifferentialSubscription)
  case cancel(id: Int)
  /// `withGraphBatch { ops }`, throwing after the last op when `throws`.
  case batch([DifferentialOp], throws: Bool)

  /// Operations including those inside batches.
  var count: Int {
    if case .batch(let ops, _) = self { return 1 + ops.reduce(0) { $0 + $1.count } }
    return 1
  }
}

struct DifferentialCase: Sendable {
  var seed: UInt64
  var ops: [DifferentialOp]

  var operationCount: Int { ops.reduce(0) { $0 + $1.count } }
}

extension DifferentialOp: CustomStringConvertible {
  /// One line of Swift-like code; a batch shows only its first line.
  var description: String {
    switch self {
    case .addStored(let id, let value): return "n\(id) = Stored(\(value))"
    case .addComputed(let id, let expr, let placeholder):
      let initial = placeholder.map { "wrappedValue: \($0), " } ?? ""
      return "n\(id) = Computed(\(initial){ \(expr) })"
    case .write(let id, let value): return "n\(id).wrappedValue = \(value)"
    case .read(let id): return "read n\(id)"
    case .readAll: return "read all"
    case .drop(let id): return "drop n\(id)"
    case .subscribe(let id, .distinct(let node)): return "s\(id) = n\(node).onChange { }"
    case .subscribe(let id, .all(let node)): return "s\(id) = n\(node).onChange(filter: PassthroughFilter()) { }"
    case .subscribe(let id, .group(let expr)): return "s\(id) = withGraphTrackingGroup { \(expr) }"
    case .cancel(let id): return "s\(id).cancel()"
    case .batch(_, let throwing):
      return throwing ? "withGraphBatch { ... throw }" : "withGraphBatch { ... }"
    }
  }
}

extension DifferentialCase: CustomStringConvertible {
  /// One operation per line, batches spelled out and indented: the
  /// reproduction printed for a failure.
  var description: String {
    var lines: [String] = []
    func emit(_ ops: [DifferentialOp], _ indent: String) {
      for op in ops {
        guard case .batch(let inner, let throwing) = op else {
          lines.append(indent + op.description)
          continue
        }
        lines.append("\(indent)withGraphBatch {")
        emit(inner, indent + "  ")
        if throwing { lines.append("\(indent)  throw Rollback()") }
        lines.append("\(indent)}")
      }
    }
    emit(ops, "  ")
    return lines.joined(separator: "\n")
  }
}
