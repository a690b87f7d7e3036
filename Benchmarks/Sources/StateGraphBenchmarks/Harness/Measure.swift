import MallocCounter
import StateGraphCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Monotonic nanoseconds (clock_gettime: ~20 ns per call, far below a sample).
@inline(__always)
func nowNanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// Runs `body` once and returns the nanoseconds it took.
@inline(never)
func timeNanoseconds(_ body: () -> Void) -> UInt64 {
  let start = nowNanoseconds()
  body()
  return nowNanoseconds() - start
}

func median(_ values: [Double]) -> Double {
  precondition(!values.isEmpty)
  let sorted = values.sorted()
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Keeps a value alive and opaque to the optimizer.
@inline(never)
func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

// ------------------------------------------------------------- heap

/// Heap allocations counted by the MallocCounter interposer.
struct AllocationCount {
  var allocations: UInt64
  var reallocations: UInt64
  var frees: UInt64
  var bytes: UInt64
}

enum Heap {
  /// True when the interposer really sees the process's allocations (glibc).
  static let isCounting: Bool = {
    guard mc_is_active() != 0 else { return false }
    // Memory from the Swift runtime (swift_slowAlloc) must be seen too.
    mc_start()
    let probe = UnsafeMutablePointer<Int>.allocate(capacity: 3)
    let counted = mc_stop().allocations
    probe.deallocate()
    return counted >= 1
  }()

  /// Counts the heap allocations `body` makes (all threads).
  static func count(_ body: () -> Void) -> AllocationCount {
    mc_start()
    body()
    let counts = mc_stop()
    return AllocationCount(
      allocations: counts.allocations, reallocations: counts.reallocations, frees: counts.frees,
      bytes: counts.bytes)
  }

  /// Bytes in use on the heap (glibc mallinfo2: chunks in use, headers
  /// included, plus mmapped blocks): "all-in" memory. The C core keeps node
  /// memory in chunks it reuses and never frees: those count by the slots
  /// nodes use, not by the chunks reserved (which earlier workloads grew).
  static var inUse: Int {
    var nodes = 0
    var reserved = 0
    sg_node_memory(&nodes, &reserved)
    return Int(mc_heap_in_use()) - reserved + nodes
  }

  static func trim() { mc_trim() }
}
