import Testing

@testable import StateGraph

/// The value lock's generation, which lets readers copy a plain value without taking the
/// lock: a copy is kept only when no holder could have stored to the value meanwhile.
@Suite("Value lock: reads without the lock")
struct ValueLockTests {
  #if !canImport(Darwin)
    @Test func aCopyIsKeptOnlyWhenNoHolderOverlappedIt() {
      let lock = ValueLock()
      var copies = 0
      #expect(lock.readWithoutLocking { copies += 1 })
      #expect(copies == 1)
      // A holder took and let go of the lock while the copy was made.
      #expect(!lock.readWithoutLocking { lock.lock(); lock.unlock() })
      // Held when the read starts: no copy is made at all.
      lock.lock()
      #expect(!lock.readWithoutLocking { copies += 1 })
      #expect(copies == 1)
      lock.unlock()
      #expect(lock.readWithoutLocking { copies += 1 })
      #expect(copies == 2)
    }

    @Test func aStoredNodeHandsOutItsValueWithoutTheLockOnlyWhenFree() {
      let node = Stored(wrappedValue: 41)
      #expect(PlainValue<Int>.isPlain)
      #expect(node.valueWithoutLocking() == 41)
      node.lock.lock()
      #expect(node.valueWithoutLocking() == nil)  // a writer may be storing: lock instead
      node.lock.unlock()
      node.wrappedValue = 42
      #expect(node.valueWithoutLocking() == 42)
    }
  #endif

  /// Plain values of every size and alignment: found where the object keeps them, and
  /// written and read back whole without the lock.
  @Test func plainValuesOfEverySizeRoundTripWithoutTheLock() {
    struct Odd: Equatable { var a: Int8, b: Int32, c: Int16 }
    struct Empty: Equatable {}
    func roundTrip<V: Equatable & Sendable>(_ first: V, _ second: V) {
      let node = Stored(wrappedValue: first)
      #if !canImport(Darwin)
        #expect(PlainValue<V>.isPlain)
      #endif
      if MemoryLayout<V>.size > 0 {
        #expect(withUnsafeMutablePointer(to: &node.value) { UnsafeMutableRawPointer($0) } == node.valueAddress)
      }
      let reader = Computed { _ in node.wrappedValue }
      #expect(reader.wrappedValue == first)
      node.wrappedValue = second
      #expect(reader.wrappedValue == second)
      #if !canImport(Darwin)
        #expect(node.valueWithoutLocking() == second)
      #endif
    }
    roundTrip(true, false)
    roundTrip(Int8(-3), 4)
    roundTrip(1.5, 2.5)
    roundTrip(Odd(a: 1, b: -2, c: 3), Odd(a: -4, b: 5, c: -6))
    roundTrip(SIMD4<Float>(1, 2, 3, 4), SIMD4(5, 6, 7, 8))  // 16-byte alignment
    roundTrip(SIMD8<Double>(repeating: 1), SIMD8(repeating: -1))  // 64 bytes, not one word
    roundTrip(Int?.none, 7)  // 9 bytes
    roundTrip(Empty(), Empty())  // nothing to copy
  }

  @Test func valuesWithReferencesAreAlwaysReadUnderTheLock() {
    #expect(!PlainValue<String>.isPlain)
    #expect(!PlainValue<[Int]>.isPlain)
    let node = Stored(wrappedValue: "a")
    #expect(node.valueWithoutLocking() == nil)
    let reader = Computed { _ in node.wrappedValue + "!" }
    #expect(reader.wrappedValue == "a!")
    node.wrappedValue = "b"
    #expect(reader.wrappedValue == "b!")
  }
}
