import Foundation
import Testing

@testable import StateGraph

/// The value lock's contended path (spin, then sleep) under real threads,
/// more of them than cores. Run under the thread sanitizer by `make test`.
@Suite("Lock Stress")
struct LockStressTests {
  final class Counter: @unchecked Sendable {
    let lock = ValueLock()
    var count = 0  // guarded by `lock`
    var log: [Int] = []  // guarded by `lock`; makes the critical section longer
  }

  @Test(.timeLimit(.minutes(1)))
  func valueLockExcludesUnderContention() {
    let counter = Counter()
    let threads = 6
    let increments = 20_000
    let done = DispatchGroup()
    for index in 0..<threads {
      done.enter()
      Thread {
        for step in 0..<increments {
          counter.lock.lock()
          counter.count += 1
          if step % 64 == 0 { counter.log.append(index) }
          counter.lock.unlock()
        }
        done.leave()
      }.start()
    }
    done.wait()
    counter.lock.withLock {
      #expect(counter.count == threads * increments)
      #expect(counter.log.count == threads * ((increments + 63) / 64))
    }
  }
}
