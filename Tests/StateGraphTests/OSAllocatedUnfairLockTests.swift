#if !canImport(os)
  import Foundation
  import StateGraph
  import Testing

  // The stand-in for Apple's lock, so that code written for Apple platforms (swift-state-
  // graph's own tests among it) compiles here with `import StateGraph` alone.
  @Suite("OSAllocatedUnfairLock where the platform has none")
  struct OSAllocatedUnfairLockTests {
    @Test func guardsItsValueAcrossThreads() {
      let counts = OSAllocatedUnfairLock(initialState: [Int: Int]())
      DispatchQueue.concurrentPerform(iterations: 8) { worker in
        for _ in 0..<1_000 { counts.withLock { $0[worker, default: 0] += 1 } }
      }
      #expect(counts.withLock { $0.values.reduce(0, +) } == 8_000)
      #expect(counts.withLock { $0.count } == 8)
    }

    @Test func copiesShareOneLockAndValue() {
      let original = OSAllocatedUnfairLock(uncheckedState: 1)
      let copy = original
      copy.withLockUnchecked { $0 += 1 }
      #expect(original.withLock { $0 } == 2)
    }

    @Test func ifAvailableAnswersNilWhileAnotherThreadHoldsIt() {
      let lock = OSAllocatedUnfairLock(initialState: 0)
      let held = DispatchSemaphore(value: 0)
      let release = DispatchSemaphore(value: 0)
      let done = DispatchSemaphore(value: 0)
      Thread.detachNewThread {
        lock.withLock { _ in
          held.signal()
          release.wait()
        }
        done.signal()
      }
      held.wait()
      #expect(lock.withLockIfAvailable { $0 } == nil)
      #expect(lock.lockIfAvailable() == false)
      release.signal()
      done.wait()
      #expect(lock.withLockIfAvailable { state -> Int in state += 1; return state } == 1)
    }

    @Test func aLockOfNothingRunsCodeUnderIt() throws {
      struct Refused: Error {}
      let lock = OSAllocatedUnfairLock()
      #expect(lock.withLock { 7 } == 7)
      #expect(throws: Refused.self) { try lock.withLock { throw Refused() } }
      lock.lock()
      #expect(lock.lockIfAvailable() == false)
      lock.unlock()
      #expect(lock.withLockIfAvailable { "free" } == "free")
    }
  }
#endif
