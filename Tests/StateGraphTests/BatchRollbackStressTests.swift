import Foundation
import Testing

@testable import StateGraph

/// Batches that roll back, against plain writers and readers on other threads. Run under
/// the thread sanitizer by `make test` (filter: Stress), and with
/// `swift test --sanitize=thread --filter BatchRollbackStress`.
@Suite("Batch Rollback Stress")
struct BatchRollbackStressTests {
  struct Failure: Error {}

  /// Each round: one plain writer per source counts up; batch threads write negative
  /// values into the same sources, read the computed nodes and roll back; readers read.
  /// After the round, with every thread joined:
  /// - each source holds its writer's last value (a rollback never loses a later write,
  ///   and never leaves a batch's value behind);
  /// - every computed node equals its formula of the sources (no value sits under a
  ///   version that names another one, which would leave a computed node stale).
  @Test(.timeLimit(.minutes(5)))
  func rollbacksNeverLoseAWriteNorLeaveAStaleValue() {
    let rounds = 300
    let writesPerRound = 20
    let sourceCount = 3
    let sources = (0..<sourceCount).map { Stored(name: "s\($0)", wrappedValue: 0) }
    let scaled = sources.map { s in Computed(name: "scaled") { _ in s.wrappedValue * 10 } }
    let pairs = (0..<sourceCount).map { i in
      let (a, b) = (scaled[i], sources[(i + 1) % sourceCount])
      return Computed(name: "pair") { _ in a.wrappedValue + b.wrappedValue }
    }
    let total = Computed(name: "total") { _ in pairs.reduce(0) { $0 + $1.wrappedValue } }
    func formulaHolds() -> Bool {
      let values = sources.map(\.wrappedValue)
      for i in 0..<sourceCount {
        guard scaled[i].wrappedValue == values[i] * 10,
          pairs[i].wrappedValue == values[i] * 10 + values[(i + 1) % sourceCount]
        else { return false }
      }
      return total.wrappedValue == values.reduce(0, +) * 11
    }
    #expect(formulaHolds())

    var failures = 0
    for round in 1...rounds {
      let base = round * writesPerRound
      var threads: [DispatchSemaphore] = []
      for (index, source) in sources.enumerated() {
        threads.append(
          startThread {
            for step in 1...writesPerRound { source.wrappedValue = base + step + index }
          })
      }
      for batchThread in 0..<2 {
        threads.append(
          startThread {
            for step in 0..<writesPerRound / 2 {
              try? withGraphBatch {
                let first = (step + batchThread) % sourceCount
                sources[first].wrappedValue = -1 - step
                _ = total.wrappedValue
                sources[(first + 1) % sourceCount].wrappedValue = -100 - step
                _ = pairs[first].wrappedValue
                sources[first].wrappedValue = -200 - step
                throw Failure()
              }
            }
          })
      }
      threads.append(
        startThread {
          for _ in 0..<writesPerRound { _ = total.wrappedValue + scaled[0].wrappedValue }
        })
      for thread in threads { #expect(thread.wait(seconds: 60)) }
      let expected = (0..<sourceCount).map { base + writesPerRound + $0 }
      if sources.map(\.wrappedValue) != expected || !formulaHolds() {
        failures += 1
        let state =
          "sources \(sources.map(\.wrappedValue)), expected \(expected); "
          + "scaled \(scaled.map(\.wrappedValue)), total \(total.wrappedValue)"
        Issue.record("round \(round): \(state)")
        if failures == 3 { break }
        // Start the next round from a consistent state.
        for (index, source) in sources.enumerated() { source.wrappedValue = -1000 - index }
      }
    }
    #expect(failures == 0)
  }

  /// The same race through a computed node's own rollback: batches recompute `scaled`
  /// while other threads recompute it from other values, and roll back.
  @Test(.timeLimit(.minutes(5)))
  func computedRollbacksAgainstConcurrentRecomputes() {
    let rounds = 200
    let s = Stored(name: "s", wrappedValue: 0)
    let t = Stored(name: "t", wrappedValue: 0)
    let scaled = Computed(name: "scaled") { _ in s.wrappedValue * 10 + t.wrappedValue }
    let shifted = Computed(name: "shifted") { _ in scaled.wrappedValue + 1 }
    var failures = 0
    for round in 1...rounds {
      let threads = [
        startThread {
          for step in 1...10 {
            t.wrappedValue = round * 100 + step
            _ = shifted.wrappedValue
          }
        },
        startThread {
          for step in 1...10 {
            try? withGraphBatch {
              s.wrappedValue = -step
              _ = shifted.wrappedValue
              throw Failure()
            }
          }
        },
        startThread {
          for _ in 1...10 { _ = shifted.wrappedValue }
        },
      ]
      for thread in threads { #expect(thread.wait(seconds: 60)) }
      let (sv, tv) = (s.wrappedValue, t.wrappedValue)
      if sv != 0 || tv != round * 100 + 10 || scaled.wrappedValue != tv
        || shifted.wrappedValue != tv + 1
      {
        failures += 1
        let state =
          "s \(sv), t \(tv), scaled \(scaled.wrappedValue), shifted \(shifted.wrappedValue)"
        Issue.record("round \(round): \(state)")
        if failures == 3 { break }
        s.wrappedValue = 0
      }
    }
    #expect(failures == 0)
  }
}
