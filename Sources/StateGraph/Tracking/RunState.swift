#if canImport(Darwin)
  import Darwin
#else
  import StateGraphCore
  import Synchronization
#endif

/// A ``DeliveryQueue``'s run state in one word: whether a runner owns the queue
/// (`running`) and whether something kept under the queue's lock needs it (`attention`:
/// queued elements, waiters, a drain on its way, a cancel). A delivery to an idle queue
/// takes it with one compare-and-swap from nothing to `running` and gives it back with one
/// from `running` to nothing; any other transition is made by the queue's lock holder, with
/// an atomic read-modify-write, so a runner on its way out either sees the attention asked
/// for or was out before it was asked for.
///
/// Like ``ValueLock``, it uses plain loads and stores for the two fast steps while the
/// process has one thread. Darwin before macOS 15 has no `Atomic`: there the word sits
/// behind an `os_unfair_lock`, which costs what the queue's own lock did.
struct RunState: ~Copyable, @unchecked Sendable {
  static let running: UInt32 = 1
  static let attention: UInt32 = 2

  #if canImport(Darwin)
    private let lock: UnsafeMutablePointer<os_unfair_lock>
    private let word: UnsafeMutablePointer<UInt32>

    init() {
      lock = .allocate(capacity: 1)
      lock.initialize(to: os_unfair_lock())
      word = .allocate(capacity: 1)
      word.initialize(to: 0)
    }

    deinit {
      lock.deallocate()
      word.deallocate()
    }

    /// Replaces the word with `update(word)` and returns the word it replaced.
    private func change(_ update: (UInt32) -> UInt32) -> UInt32 {
      os_unfair_lock_lock(lock)
      defer { os_unfair_lock_unlock(lock) }
      let old = word.pointee
      word.pointee = update(old)
      return old
    }

    /// Nothing to nothing-but-`running`: the queue is now this caller's to run.
    func tryStart() -> Bool { change { $0 == 0 ? Self.running : $0 } == 0 }

    /// `running` alone back to nothing: false when attention was asked for meanwhile.
    func tryStop() -> Bool { change { $0 == Self.running ? 0 : $0 } == Self.running }

    /// Sets `bits`, returning the word before.
    @discardableResult
    func set(_ bits: UInt32) -> UInt32 { change { $0 | bits } }

    /// Clears `bits`.
    func clear(_ bits: UInt32) { _ = change { $0 & ~bits } }

    var isRunning: Bool { change { $0 } & Self.running != 0 }
  #else
    private let word = Atomic<UInt32>(0)

    init() {}

    func tryStart() -> Bool {
      if sg_process_is_single_threaded() != 0 {
        guard word.load(ordering: .relaxed) == 0 else { return false }
        word.store(Self.running, ordering: .relaxed)
        return true
      }
      return word.compareExchange(expected: 0, desired: Self.running, ordering: .acquiring)
        .exchanged
    }

    func tryStop() -> Bool {
      if sg_process_is_single_threaded() != 0 {
        guard word.load(ordering: .relaxed) == Self.running else { return false }
        word.store(0, ordering: .relaxed)
        return true
      }
      return word.compareExchange(expected: Self.running, desired: 0, ordering: .releasing)
        .exchanged
    }

    @discardableResult
    func set(_ bits: UInt32) -> UInt32 {
      word.bitwiseOr(bits, ordering: .acquiringAndReleasing).oldValue
    }

    func clear(_ bits: UInt32) {
      word.bitwiseAnd(~bits, ordering: .acquiringAndReleasing)
    }

    var isRunning: Bool { word.load(ordering: .acquiring) & Self.running != 0 }
  #endif
}
