#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
  import StateGraphCore
  import Synchronization
#elseif canImport(Musl)
  import Musl
  import StateGraphCore
  import Synchronization
#endif

/// A small non-recursive lock guarding one node's Swift value, stored inline in
/// its owner. Never held while user code runs: callers copy values in and out
/// under it. `@inlinable`, so a client's specialised reads take it without a call.
#if canImport(Darwin)
  // Darwin: os_unfair_lock (Synchronization's Atomic needs macOS 15; we support 14).
  // It must not move, hence the allocation. `@unchecked`: the word is used through
  // os_unfair_lock calls only.
  @usableFromInline
  package struct ValueLock: ~Copyable, @unchecked Sendable {
    @usableFromInline let raw: UnsafeMutablePointer<os_unfair_lock>

    @usableFromInline package init() {
      raw = .allocate(capacity: 1)
      raw.initialize(to: os_unfair_lock())
    }

    deinit { raw.deallocate() }

    @inlinable @inline(__always)
    package func lock() { os_unfair_lock_lock(raw) }

    @inlinable @inline(__always)
    package func unlock() { os_unfair_lock_unlock(raw) }

    /// Copies without the lock need the Linux lock's generation: never made here
    /// (`PlainValue.isPlain` is false), every read takes the lock.
    @inlinable @inline(__always)
    package func readWithoutLocking(_ copy: () -> Void) -> Bool { false }
  }
#else
  // Linux: one atomic word, after "Futexes Are Tricky" (Drepper), mutex 2. The
  // uncontended path is a compare-exchange to lock and an exchange to unlock,
  // against ~110 instructions for a pthread_mutex pair. A thread that finds
  // the lock taken spins briefly (critical sections are a copy or two), then
  // sleeps on a condition variable shared by every ValueLock.
  //
  // While the process has one thread nobody else can look at the word, so both
  // take plain stores, as glibc's mutexes and the graph lock do. The flag is read
  // at each step and turns false only when this thread makes a second one (even
  // under the lock: a value's `==` or deinit may run there), so an unlock after
  // that takes the atomic path and wakes whoever came to wait.
  //
  // The lock also keeps a generation, odd while held, for readers that copy a plain
  // value without taking it (``readWithoutLocking(_:)``).
  @usableFromInline
  package struct ValueLock: ~Copyable, Sendable {
    /// 0: free. 1: held. 2: held, and a thread may be asleep waiting for it.
    @usableFromInline let state = Atomic<UInt32>(0)
    /// Bumped by the holder when it takes the lock (to odd) and when it lets go (to
    /// even): a reader that sees the same even number before and after its copy knew no
    /// holder meanwhile. Only the holder writes it.
    @usableFromInline let generation = Atomic<UInt32>(0)

    @inlinable package init() {}

    @inlinable @inline(__always)
    package func lock() {
      if sg_process_is_single_threaded() != 0, state.load(ordering: .relaxed) == 0 {
        state.store(1, ordering: .relaxed)
      } else if !state.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged {
        lockContended()
      }
      // Odd before anything the holder stores: the fence orders this store before them,
      // for a reader that sees one of them and then fences (seqlock, after Boehm).
      generation.store(generation.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
      atomicMemoryFence(ordering: .releasing)
    }

    @inlinable @inline(__always)
    package func unlock() {
      generation.store(generation.load(ordering: .relaxed) &+ 1, ordering: .releasing)
      if sg_process_is_single_threaded() != 0 {
        state.store(0, ordering: .relaxed)
      } else if state.exchange(0, ordering: .releasing) == 2 {
        Parking.wakeAll()
      }
    }

    /// Runs `copy`, which copies a value this lock guards with `sg_copy_relaxed`, without
    /// taking the lock; true when no holder could have stored to the value meanwhile
    /// (the copy is then one the lock would have given), false when the caller must take
    /// the lock instead. Holders store such values with `sg_copy_relaxed` too.
    @inlinable @inline(__always)
    package func readWithoutLocking(_ copy: () -> Void) -> Bool {
      let before = generation.load(ordering: .acquiring)
      guard before & 1 == 0 else { return false }
      copy()
      atomicMemoryFence(ordering: .acquiring)
      return generation.load(ordering: .relaxed) == before
    }

    @usableFromInline
    func lockContended() {
      for _ in 0..<100 {
        if state.load(ordering: .relaxed) == 0,
          state.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
        {
          return
        }
      }
      // Marking the lock 2 under the parking mutex, then waiting, cannot miss
      // the wake-up: the unlocker that sees 2 needs that mutex to broadcast.
      // A thread that gets the lock this way leaves it at 2, so its unlock
      // wakes the others (perhaps needlessly; never too few).
      pthread_mutex_lock(Parking.mutex)
      while state.exchange(2, ordering: .acquiring) != 0 {
        pthread_cond_wait(Parking.condition, Parking.mutex)
      }
      pthread_mutex_unlock(Parking.mutex)
    }
  }

  /// Where contended ValueLocks sleep: one mutex and condition for all of
  /// them. Contention is rare and short, so a shared queue costs nothing on
  /// the fast path and little on the slow one.
  @usableFromInline
  enum Parking {
    // Never freed, like the graph.
    nonisolated(unsafe) static let mutex: UnsafeMutablePointer<pthread_mutex_t> = {
      let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
      pthread_mutex_init(mutex, nil)
      return mutex
    }()
    nonisolated(unsafe) static let condition: UnsafeMutablePointer<pthread_cond_t> = {
      let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
      pthread_cond_init(condition, nil)
      return condition
    }()

    @usableFromInline
    static func wakeAll() {
      pthread_mutex_lock(mutex)
      pthread_cond_broadcast(condition)
      pthread_mutex_unlock(mutex)
    }
  }
#endif

extension ValueLock {
  @inlinable @inline(__always)
  package func withLock<R>(_ body: () throws -> R) rethrows -> R {
    lock()
    defer { unlock() }
    return try body()
  }
}

/// A value behind a ``ValueLock``, for bookkeeping off the hot path. Callers
/// copy state in and out; no user code runs under the lock. `@unchecked`:
/// `state` is touched inside `withLock` only, and the package keeps `State`
/// made of `Sendable` parts.
package final class Locked<State>: @unchecked Sendable {
  private let lock = ValueLock()
  private var state: State

  package init(_ state: State) { self.state = state }

  package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}

/// The variant the thread holding it may take again, as the normalization
/// store's writer lock needs (a `modify` body may call back into the store): a
/// recursive pthread mutex on the heap (it must not move once initialised).
/// `@unchecked`: the mutex is used through pthread calls only.
package final class RecursiveLock: @unchecked Sendable {
  private let raw: UnsafeMutablePointer<pthread_mutex_t>

  package init() {
    raw = .allocate(capacity: 1)
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
    pthread_mutex_init(raw, &attributes)
    pthread_mutexattr_destroy(&attributes)
  }

  deinit {
    pthread_mutex_destroy(raw)
    raw.deallocate()
  }

  @inline(__always)
  package func withLock<R, Failure: Error>(_ body: () throws(Failure) -> R) throws(Failure) -> R {
    pthread_mutex_lock(raw)
    defer { pthread_mutex_unlock(raw) }
    return try body()
  }
}
