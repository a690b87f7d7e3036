import Foundation
import StateGraph
import Testing

/// Batches that write persisted nodes and throw at random, racing plain writers on the
/// same place (also run under TSan). However they interleave, every node on the place, a
/// node made afterwards and the place end on one value.
@Suite("Storage: rollback stress")
struct StorageRollbackStressTests {
  struct Cancelled: Error {}

  @Test(arguments: [false, true])
  func rollbacksRacingWritersEndWithNodesAndPlaceTogether(onUserDefaults: Bool) {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let backing: GraphStorageBacking =
      onUserDefaults ? suite.backing("value") : .custom(CountingBacking())
    let first = Stored(wrappedValue: -1, backed: backing)
    let second = Stored(wrappedValue: -1, backed: backing)
    let threads = (0..<4).map { thread in
      startThread {
        var random = SplitMix64(seed: UInt64(thread) + 1)
        for step in 0..<150 {
          let node = random.next() % 2 == 0 ? first : second
          let value = thread * 1000 + step
          if thread % 2 == 0 {
            try? withGraphBatch {
              node.wrappedValue = value
              if random.next() % 3 == 0 { node.wrappedValue = value + 500 }
              if random.next() % 2 == 0 { throw Cancelled() }
            }
          } else {
            node.wrappedValue = value
          }
        }
      }
    }
    for thread in threads { #expect(thread.wait(seconds: 60)) }
    let fresh = Stored(wrappedValue: -2, backed: backing)
    #expect(first.wrappedValue == second.wrappedValue)
    #expect(first.wrappedValue == fresh.wrappedValue)
    if onUserDefaults {
      let stored = suite.defaults.object(forKey: "value") as? Int ?? -1
      #expect(first.wrappedValue == stored)
    }
  }
}
