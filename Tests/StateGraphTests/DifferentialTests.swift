import Foundation
import Testing

@testable import StateGraph

/// The randomized differential test: random graphs and operation sequences
/// run against the library and the reference model (DifferentialModel), with
/// every step compared (DifferentialRunner). Deterministic: case `i` of a run
/// uses seed `SG_DIFF_BASE + i`.
///
/// Environment:
///   SG_DIFF_SEED=n    run only seed n, printing every step
///   SG_DIFF_COUNT=n   cases in all (default 10,000), split over the shards
///   SG_DIFF_BASE=n    first seed (default 0): explore other seeds
///   SG_DIFF_TRACE=1   print every step of every case (use with a small count)
///
/// A failure is shrunk (fewer and simpler operations that still fail) and
/// reported with its seed, the shrunk case and the command that replays it.
@Suite("Differential")
struct DifferentialTests {
  static let shardCount = 4

  private static func environment(_ name: String) -> UInt64? {
    ProcessInfo.processInfo.environment[name].flatMap { UInt64($0) }
  }

  @Test("random graphs and operations agree with the reference model", arguments: 0..<shardCount)
  func randomSequences(shard: Int) {
    DifferentialCrashNote.install()
    if let seed = Self.environment("SG_DIFF_SEED") {
      if shard == 0 { replay(seed) }
      return
    }
    let count = Self.environment("SG_DIFF_COUNT") ?? 10_000
    let base = Self.environment("SG_DIFF_BASE") ?? 0
    let trace = Self.environment("SG_DIFF_TRACE") == 1
    let clock = ContinuousClock()
    let start = clock.now
    var cases = 0
    var operations = 0
    // Shard k takes seeds base + k, base + k + shards, ...: every shard gets
    // a share of every region of the seed space.
    for index in stride(from: UInt64(shard), to: count, by: Self.shardCount) {
      let seed = base + index
      let testCase = DifferentialGenerator.makeCase(seed: seed)
      DifferentialCrashNote.running(shard: shard, seed: seed)
      if trace { print("differential: seed \(seed)") }
      let failure = DifferentialRunner.run(testCase, trace: trace)
      DifferentialCrashNote.idle(shard: shard)
      cases += 1
      operations += testCase.operationCount
      if let failure {
        report(testCase, failure)
        return
      }
    }
    print(
      "differential: shard \(shard): \(cases) cases, \(operations) operations, seeds from \(base),"
        + " \(clock.now - start)")
  }

  /// Runs one seed with every step printed, as the failure report suggests.
  private func replay(_ seed: UInt64) {
    let testCase = DifferentialGenerator.makeCase(seed: seed)
    print("differential: replaying seed \(seed):\n\(testCase)")
    if let failure = DifferentialRunner.run(testCase, trace: true) {
      report(testCase, failure)
    } else {
      print("differential: seed \(seed) passes")
    }
  }

  private func report(_ testCase: DifferentialCase, _ failure: DifferentialFailure) {
    let (shrunk, shrunkFailure) = DifferentialShrinker.shrink(testCase, failure) {
      DifferentialRunner.run($0)
    }
    Issue.record(
      """
      differential: seed \(testCase.seed) failed at \(failure)
      shrunk from \(testCase.operationCount) to \(shrunk.operationCount) operations, failing at \
      \(shrunkFailure):
      \(shrunk)
      replay: SG_DIFF_SEED=\(testCase.seed) swift test --filter Differential
      """)
  }
}
