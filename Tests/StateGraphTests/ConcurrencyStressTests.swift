import Foundation
import Testing

@testable import StateGraph

/// Run under the thread sanitizer by `make test` (filter: Stress).
@Suite("Concurrency Stress")
struct ConcurrencyStressTests {
  @Test(.timeLimit(.minutes(1)))
  func manyTasksWritingAndReadingOneGraph() async {
    let sources = (0..<8).map { Stored(name: "s\($0)", wrappedValue: 0) }
    let sum = Computed(name: "sum") { _ in sources.reduce(0) { $0 + $1.wrappedValue } }
    let left = Computed(name: "left") { _ in sum.wrappedValue + 1 }
    let right = Computed(name: "right") { _ in sum.wrappedValue * 2 }
    let diamond = Computed(name: "diamond") { _ in (left.wrappedValue, right.wrappedValue) }
    let writesPerTask = 2_000

    await withTaskGroup(of: Void.self) { group in
      for (index, source) in sources.enumerated() {
        group.addTask {
          for step in 1...writesPerTask { source.wrappedValue = step * (index + 1) }
        }
        group.addTask {
          for _ in 0..<writesPerTask {
            let (l, r) = diamond.wrappedValue
            // each read is one consistent snapshot of `sum`
            #expect(r == (l - 1) * 2)
          }
        }
      }
    }
    let expected = (1...sources.count).reduce(0) { $0 + writesPerTask * $1 }
    #expect(sum.wrappedValue == expected)
    #expect(diamond.wrappedValue == (expected + 1, expected * 2))
  }

  @Test(.timeLimit(.minutes(1)))
  func creatingAndDroppingNodesFromManyThreads() async {
    let shared = Stored(wrappedValue: 1)
    await withTaskGroup(of: Int.self) { group in
      for _ in 0..<8 {
        group.addTask {
          var total = 0
          for i in 0..<500 {
            let local = Computed { _ in shared.wrappedValue + i }
            total += local.wrappedValue - i
            if i % 50 == 0 { shared.wrappedValue = 1 }
          }
          return total
        }
      }
      for await total in group { #expect(total == 500) }
    }
  }
}
