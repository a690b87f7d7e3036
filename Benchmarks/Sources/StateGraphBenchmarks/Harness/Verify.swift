/// Collects verification failures. Workloads check their own results (final
/// values, exact recompute and effect counts) and report here; the runner
/// exits non-zero when anything was reported, so a fast wrong answer fails.
enum Verify {
  nonisolated(unsafe) private(set) static var failures: [String] = []
  /// Every failure reported, including those not kept in `failures`.
  nonisolated(unsafe) private(set) static var failureCount = 0
  /// The workload being checked, prefixed to every message.
  nonisolated(unsafe) static var context = ""

  static func fail(_ message: String) {
    failureCount += 1
    // A broken workload could report once per op: keep the first few.
    if failures.count < 50 { failures.append("\(context): \(message)") }
  }

  @inline(__always)
  static func that(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fail(message()) }
  }

  static func equal<T: Equatable>(_ actual: T, _ expected: T, _ what: @autoclosure () -> String) {
    if actual != expected { fail("\(what()): got \(actual), expected \(expected)") }
  }
}

/// What a run of ops produced: a wrapping sum of every value the workload
/// read, and how often computations and effects ran. The baseline and
/// StateGraph must produce identical tallies for the same ops; where a closed
/// form exists, both must also match it.
struct Tally: Equatable, CustomStringConvertible {
  var checksum = 0
  var recomputes = 0
  var effects = 0

  var description: String { "checksum \(checksum), recomputes \(recomputes), effects \(effects)" }

  static func += (lhs: inout Tally, rhs: Tally) {
    lhs.checksum &+= rhs.checksum
    lhs.recomputes += rhs.recomputes
    lhs.effects += rhs.effects
  }
}

/// A mutable counter that compute closures (which are `@Sendable`) can bump.
/// Closures of one benchmark run on one thread.
final class Counter: @unchecked Sendable {
  var count = 0
  init() {}
}

/// One implementation of a workload, built and ready. `run(range)` performs
/// ops `range` (op `i` is the same update in every implementation, so values
/// keep changing across calls) and adds what it read to `tally`.
protocol Subject: AnyObject {
  func run(_ ops: Range<Int>)
  var tally: Tally { get }
}
