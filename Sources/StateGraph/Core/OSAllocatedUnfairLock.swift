#if !canImport(os)
  #if canImport(Glibc)
    import Glibc
  #elseif canImport(Musl)
    import Musl
  #endif

  /// Apple's `OSAllocatedUnfairLock` (module `os`) where the platform has none, so that
  /// code written for swift-state-graph on Apple platforms, whose module makes the lock
  /// visible, compiles here unchanged: a lock around a value, copied as a handle (every
  /// copy guards the same value). A plain mutex rather than an unfair lock, and with
  /// Apple's `Sendable` requirements relaxed; user code may run under it.
  ///
  /// ```swift
  /// let seen = OSAllocatedUnfairLock(initialState: [Int]())
  /// seen.withLock { $0.append(1) }
  /// ```
  public struct OSAllocatedUnfairLock<State>: @unchecked Sendable {
    private let storage: Storage

    /// A lock guarding `initialState`.
    public init(initialState: State) { storage = Storage(initialState) }

    /// A lock guarding `uncheckedState`.
    public init(uncheckedState: State) { storage = Storage(uncheckedState) }

    /// Runs `body` with the value, holding the lock.
    @discardableResult
    public func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
      try withLockUnchecked(body)
    }

    /// Runs `body` with the value, holding the lock.
    @discardableResult
    public func withLockUnchecked<R>(_ body: (inout State) throws -> R) rethrows -> R {
      lock()
      defer { unlock() }
      return try body(&storage.state)
    }

    /// Runs `body` with the value when the lock is free now; nil when it is not.
    public func withLockIfAvailable<R>(_ body: (inout State) throws -> R) rethrows -> R? {
      try withLockIfAvailableUnchecked(body)
    }

    /// Runs `body` with the value when the lock is free now; nil when it is not.
    public func withLockIfAvailableUnchecked<R>(_ body: (inout State) throws -> R) rethrows -> R? {
      guard lockIfAvailable() else { return nil }
      defer { unlock() }
      return try body(&storage.state)
    }

    /// Takes the lock, waiting for it.
    public func lock() { pthread_mutex_lock(storage.mutex) }

    /// Lets go of the lock, which this thread holds.
    public func unlock() { pthread_mutex_unlock(storage.mutex) }

    /// Takes the lock if it is free now.
    public func lockIfAvailable() -> Bool { pthread_mutex_trylock(storage.mutex) == 0 }

    /// The mutex and the value, shared by every copy of the lock. The mutex lives on
    /// the heap: it must not move once initialised.
    private final class Storage {
      let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
      var state: State

      init(_ state: State) {
        self.state = state
        pthread_mutex_init(mutex, nil)
      }

      deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
      }
    }
  }

  extension OSAllocatedUnfairLock where State == Void {
    /// A lock guarding nothing but the code run under it.
    public init() { self.init(uncheckedState: ()) }

    /// Runs `body` holding the lock.
    @discardableResult
    public func withLock<R>(_ body: () throws -> R) rethrows -> R {
      try withLockUnchecked { _ in try body() }
    }

    /// Runs `body` holding the lock.
    @discardableResult
    public func withLockUnchecked<R>(_ body: () throws -> R) rethrows -> R {
      try withLockUnchecked { _ in try body() }
    }

    /// Runs `body` when the lock is free now; nil when it is not.
    public func withLockIfAvailable<R>(_ body: () throws -> R) rethrows -> R? {
      try withLockIfAvailableUnchecked { _ in try body() }
    }
  }
#endif
