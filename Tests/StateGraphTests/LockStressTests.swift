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

/// Reads of a plain value inside computations copy it without the lock, and keep the
/// copy only when no writer held the lock meanwhile; under writers on every core a
/// computation never sees half of one write and half of another.
@Suite("Lock Stress: reads without the lock")
struct UnlockedReadStressTests {
  /// Eight words written together: a torn copy breaks the relation between them.
  struct Quad: Equatable {
    var a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0
    init(_ n: Int) {
      (a, b, c, d) = (n, ~n, n &* 31, -n)
      (e, f, g, h) = (n ^ 5, n &+ 7, n &* 3, ~n &* 3)
    }
    var isWhole: Bool { self == Quad(a) }
  }

  @Test(.timeLimit(.minutes(1)))
  func aPlainValueIsNeverSeenTorn() {
    #if !canImport(Darwin)
      #expect(PlainValue<Quad>.isPlain)
    #endif
    let source = Stored(wrappedValue: Quad(0))
    // A computed plain value too, which the writing thread stores while the reader copies.
    let derived = Computed { _ in Quad(source.wrappedValue.a &+ 1) }
    let torn = Locked(0)
    let runs = Locked(0)
    let check = Computed { _ in
      runs.withLock { $0 += 1 }
      var sum = 0
      for _ in 0..<8 {  // read again and again: each read copies the values anew
        let quad = source.wrappedValue, plusOne = derived.wrappedValue
        if !quad.isWhole || !plusOne.isWhole { torn.withLock { $0 += 1 } }
        sum &+= quad.a
      }
      return sum
    }
    let writes = 300_000
    let start = DispatchSemaphore(value: 0)
    let writing = Locked(true)
    let done = DispatchGroup()
    done.enter()
    Thread {  // one thread per core: writes the source, then brings `derived` up to date
      start.wait()
      for step in 1...writes {
        source.wrappedValue = Quad(step)
        if step % 2 == 0 { _ = derived.wrappedValue }
      }
      writing.withLock { $0 = false }
      done.leave()
    }.start()
    done.enter()
    Thread {
      start.wait()
      while writing.withLock({ $0 }) { _ = check.wrappedValue }
      done.leave()
    }.start()
    start.signal()
    start.signal()
    done.wait()
    #expect(torn.withLock { $0 } == 0)
    #expect(check.wrappedValue == 8 &* writes)
    #expect(derived.wrappedValue == Quad(writes &+ 1))
    #expect(runs.withLock { $0 } > 1)  // the reader ran while the writer wrote
  }
}
