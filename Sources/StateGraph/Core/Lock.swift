#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A small non-recursive lock guarding one node's Swift value. Never held
/// while user code runs: callers copy values in and out under it.
struct ValueLock: @unchecked Sendable {
  #if canImport(Darwin)
    private let raw: UnsafeMutablePointer<os_unfair_lock>
    init() {
      raw = .allocate(capacity: 1)
      raw.initialize(to: os_unfair_lock())
    }
    @inline(__always) func lock() { os_unfair_lock_lock(raw) }
    @inline(__always) func unlock() { os_unfair_lock_unlock(raw) }
    func deallocate() { raw.deallocate() }
  #else
    private let raw: UnsafeMutablePointer<pthread_mutex_t>
    init() {
      raw = .allocate(capacity: 1)
      pthread_mutex_init(raw, nil)
    }
    @inline(__always) func lock() { pthread_mutex_lock(raw) }
    @inline(__always) func unlock() { pthread_mutex_unlock(raw) }
    func deallocate() {
      pthread_mutex_destroy(raw)
      raw.deallocate()
    }
  #endif

  @inline(__always)
  func withLock<R>(_ body: () throws -> R) rethrows -> R {
    lock()
    defer { unlock() }
    return try body()
  }
}
