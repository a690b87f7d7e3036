#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// When the library traps (a `fatalError`, a failed precondition) the test
/// process dies before any shrinking or reporting can happen. So that such a
/// crash still names its seed, each shard notes the seed it is running in a
/// fixed slot, and a signal handler writes the slots out on SIGILL, SIGTRAP,
/// SIGSEGV, SIGBUS or SIGABRT, then puts back the handler that was there
/// before (the Swift runtime's backtracer, say) and raises the signal again
/// for it. The handler touches preallocated memory and write(2) only:
/// nothing else is safe in a signal handler.
enum DifferentialCrashNote {
  static let slotCount = 16
  private static let prefix = Array("\ndifferential: crashed while running SG_DIFF_SEED=".utf8)

  /// Seed + 1 per shard, 0 while the shard runs nothing.
  nonisolated(unsafe) private static let slots = preallocated(UInt64.self, slotCount)
  /// Room for the digits of one seed and a newline.
  nonisolated(unsafe) private static let digits = preallocated(UInt8.self, 24)
  /// The handlers found at installation, by signal number.
  nonisolated(unsafe) private static let previous: UnsafeMutablePointer<sigaction> = {
    let memory = UnsafeMutablePointer<sigaction>.allocate(capacity: 64)
    memory.initialize(repeating: sigaction(), count: 64)
    return memory
  }()

  private static func preallocated<T: FixedWidthInteger>(
    _: T.Type, _ count: Int
  ) -> UnsafeMutablePointer<T> {
    let memory = UnsafeMutablePointer<T>.allocate(capacity: count)
    memory.initialize(repeating: 0, count: count)
    return memory
  }

  /// Installs the handler once per process (a lazy static is initialised once,
  /// thread-safely).
  private static let installation: Void = {
    _ = (slots, digits, prefix, previous)  // allocate now, not in the handler
    for signal in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT] {
      var action = sigaction()
      #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
      #else
        action.__sigaction_u.__sa_handler = handler
      #endif
      sigaction(signal, &action, previous + Int(signal))
    }
  }()

  static func install() { installation }

  static func running(shard: Int, seed: UInt64) { slots[shard % slotCount] = seed &+ 1 }
  static func idle(shard: Int) { slots[shard % slotCount] = 0 }

  private static let handler: @convention(c) (Int32) -> Void = { signal in
    for index in 0..<slotCount where slots[index] != 0 {
      var seed = slots[index] - 1
      var length = 0
      repeat {  // digits backwards, then reversed in place
        digits[length] = UInt8(ascii: "0") + UInt8(seed % 10)
        seed /= 10
        length += 1
      } while seed > 0
      var low = 0
      var high = length - 1
      while low < high {
        (digits[low], digits[high]) = (digits[high], digits[low])
        low += 1
        high -= 1
      }
      digits[length] = UInt8(ascii: "\n")
      prefix.withUnsafeBufferPointer { _ = write(2, $0.baseAddress, $0.count) }
      _ = write(2, digits, length + 1)
    }
    sigaction(signal, previous + Int(signal), nil)
    raise(signal)
  }
}
