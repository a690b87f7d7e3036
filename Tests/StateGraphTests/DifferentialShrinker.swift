/// A hand-written shrinker: makes a failing case smaller while it still
/// fails, so that the printed reproduction is a handful of operations
/// instead of forty. Greedy: try every smaller variant, keep the first that
/// still fails, start over; stop when none fails or the budget of runs is
/// spent. The runner skips operations on nodes that no longer exist, so any
/// variant is a valid case.
enum DifferentialShrinker {
  static func shrink(
    _ failing: DifferentialCase, _ failure: DifferentialFailure, budget: Int = 4_000,
    fails: (DifferentialCase) -> DifferentialFailure?
  ) -> (DifferentialCase, DifferentialFailure) {
    var best = (failing, failure)
    var attempts = 0
    var improved = true
    while improved && attempts < budget {
      improved = false
      for ops in variants(of: best.0.ops) where attempts < budget {
        attempts += 1
        let candidate = DifferentialCase(seed: best.0.seed, ops: ops)
        if let failure = fails(candidate) {
          best = (candidate, failure)
          improved = true
          break
        }
      }
    }
    return best
  }

  /// Smaller variants, the most promising (biggest cuts) first.
  static func variants(of ops: [DifferentialOp]) -> [[DifferentialOp]] {
    var result: [[DifferentialOp]] = []
    // Remove runs of operations, halving the run length down to one.
    var size = ops.count / 2
    while size >= 1 {
      for start in stride(from: 0, to: ops.count, by: size) {
        var smaller = ops
        smaller.removeSubrange(start..<min(start + size, ops.count))
        result.append(smaller)
      }
      size /= 2
    }
    // Simplify one operation in place.
    for (index, op) in ops.enumerated() {
      for simpler in simplifications(of: op) {
        var smaller = ops
        smaller.replaceSubrange(index...index, with: simpler)
        result.append(smaller)
      }
    }
    return result
  }

  /// Each result replaces the operation (a batch may become its contents).
  private static func simplifications(of op: DifferentialOp) -> [[DifferentialOp]] {
    switch op {
    case .batch(let inner, let throwing):
      var result: [[DifferentialOp]] = [inner]
      if throwing { result.append([.batch(inner, throws: false)]) }
      for smaller in variants(of: inner) { result.append([.batch(smaller, throws: throwing)]) }
      return result
    case .addComputed(let id, let expr, let placeholder):
      var result = simpler(expr).map {
        [DifferentialOp.addComputed(id: id, expr: $0, placeholder: placeholder)]
      }
      if placeholder != nil { result.append([.addComputed(id: id, expr: expr, placeholder: nil)]) }
      return result
    case .subscribe(let id, .group(let expr)):
      return simpler(expr).map { [.subscribe(id: id, .group($0))] }
    case .readAll:
      return []
    default:
      return []
    }
  }

  /// An expression's direct parts, each of which can stand in for it.
  private static func simpler(_ expr: DifferentialExpr) -> [DifferentialExpr] {
    switch expr {
    case .read, .constant: return []
    case .sum(let a, let b), .product(let a, let b): return [a, b]
    case .modulo(let a, _): return [a]
    case .branch(let condition, _, let then, let otherwise): return [then, otherwise, condition]
    }
  }
}
