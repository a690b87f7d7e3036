import Foundation
import Testing

import StateGraph

/// Nodes of `Sendable` values shared by tasks (which the compiler allows only for those):
/// class and struct values written, derived and read from many threads. Run under the
/// thread sanitizer with `swift test --sanitize=thread --filter SendableStress`; the
/// values checked are exact.
@Suite("Sendable Stress")
struct SendableStressTests {
  /// Immutable, hence `Sendable`: a new instance per change.
  final class Tally: Sendable {
    let count: Int
    let history: [Int]
    init(count: Int, history: [Int]) {
      self.count = count
      self.history = history
    }
  }

  @Test(.timeLimit(.minutes(3)))
  func sendableClassAndStructValuesAcrossTasks() async {
    let tasks = 4
    let stepsPerTask = 500
    let tallies = (0..<tasks).map { Stored(name: "tally\($0)", wrappedValue: Tally(count: 0, history: [])) }
    let totals = Stored(name: "totals", wrappedValue: [Int](repeating: 0, count: tasks))
    let sum = Computed(name: "sum") { _ in tallies.reduce(0) { $0 + $1.wrappedValue.count } }
    let lengths = Computed(name: "lengths") { _ in tallies.map { $0.wrappedValue.history.count } }
    await withTaskGroup(of: Void.self) { group in
      for index in 0..<tasks {
        let tally = tallies[index]
        group.addTask {
          for step in 1...stepsPerTask {
            let old = tally.wrappedValue  // only this task writes `tally`
            tally.wrappedValue = Tally(count: old.count + 1, history: old.history + [step])
            try? withGraphBatch {
              totals.wrappedValue[index] = -1  // rolled back below
              throw CancellationError()
            }
            _ = sum.wrappedValue
          }
        }
        group.addTask {
          for _ in 0..<stepsPerTask {
            let (total, counts) = (sum.wrappedValue, lengths.wrappedValue)
            #expect(total >= 0 && counts.allSatisfy { $0 <= stepsPerTask })
          }
        }
      }
    }
    #expect(sum.wrappedValue == tasks * stepsPerTask)
    #expect(lengths.wrappedValue == Array(repeating: stepsPerTask, count: tasks))
    #expect(tallies.allSatisfy { $0.wrappedValue.history == Array(1...stepsPerTask) })
    #expect(totals.wrappedValue == Array(repeating: 0, count: tasks))
  }
}
