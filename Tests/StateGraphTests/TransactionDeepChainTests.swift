import Foundation
import Testing

@testable import StateGraph

/// Evaluation against staged values keeps its stack use bounded, however deep the chain of
/// computed nodes over a staged node.
@Suite("withGraphTransaction: deep chains")
struct TransactionDeepChainTests {
  static let depth = 10_000

  /// `head` → 1 → 2 → … → `depth`, each node one more than the one it reads.
  static func chain(over head: Stored<Int>) -> [Computed<Int>] {
    var nodes: [Computed<Int>] = []
    nodes.reserveCapacity(depth)
    for _ in 0..<depth {
      let below = nodes.last
      nodes.append(Computed { _ in (below?.wrappedValue ?? head.wrappedValue) + 1 })
    }
    return nodes
  }

  /// Runs `body` on a thread with a 512 KiB stack; false when it did not end in time.
  static func onSmallStack(_ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      body()
      done.signal()
    }
    thread.stackSize = 512 * 1024
    thread.start()
    return done.wait(seconds: 120)
  }

  /// Whether this process runs under ThreadSanitizer, whose runtime does not follow the
  /// core's switch to its own stack segments (a deep chain's first read).
  static let underThreadSanitizer = dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil

  /// Whether the chain ran before the transaction (its nodes then have cached values and
  /// edges) or never did (each is first read through the core's own stack segments).
  @Test(
    .disabled(if: underThreadSanitizer, "ThreadSanitizer cannot follow the core's stack switch"),
    arguments: [true, false])
  func aChainIsReadInsideATransactionOnASmallStack(ranBefore: Bool) {
    let head = Stored(wrappedValue: 0)
    let nodes = Self.chain(over: head)
    if ranBefore { #expect(nodes.last!.wrappedValue == Self.depth) }
    let seen = Locked<[Int]>([])
    #expect(
      Self.onSmallStack {
        withGraphTransaction {
          head.wrappedValue = 5
          seen.withLock { $0 = [nodes.last!.wrappedValue, nodes[99].wrappedValue] }
        }
      })
    #expect(seen.withLock { $0 } == [Self.depth + 5, 105])
    #expect(nodes.last!.wrappedValue == Self.depth + 5)
  }
}
