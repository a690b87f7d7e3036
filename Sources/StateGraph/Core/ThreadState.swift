import StateGraphCore

/// The Swift wrapper's per-thread state, kept in the C core's binding slot
/// and released by the core when the thread exits. Only that thread touches
/// it, so its accesses skip the dynamic exclusivity checks (a runtime call
/// each, on every change and every batch).
@usableFromInline
final class ThreadState {
  /// The innermost open ``withGraphBatch(_:)`` transaction. Unmanaged: `transactions`
  /// holds it, so opening and closing a batch, and the changes that ask for it, count no
  /// references.
  @usableFromInline @exclusivity(unchecked) var innermostTransaction: Unmanaged<Transaction>?
  @inlinable var transaction: Transaction? {
    get { innermostTransaction?.takeUnretainedValue() }
    set { innermostTransaction = newValue.map { .passUnretained($0) } }
  }
  /// The innermost open level of a staged ``withGraphTransaction(_:)`` (Batch/Staging.swift).
  @usableFromInline @exclusivity(unchecked) var staging: Staging?
  /// Staging levels that ended, kept for the next ones (one per nesting level).
  @exclusivity(unchecked) var spareStagings: [Staging] = []
  /// Tests only: called by this thread's next commits once they hold every lock and
  /// applied their first node (Batch/Staging.swift).
  @exclusivity(unchecked) var pauseInCommitForTesting: (() -> Void)?
  /// The logs of this thread's batches, one per nesting level, made by the first batch
  /// that nests that deep and reused by the next ones: the first `openTransactions` are
  /// open, innermost last.
  @exclusivity(unchecked) var transactions: [Transaction] = []
  @exclusivity(unchecked) var openTransactions = 0
  /// Plain stored nodes made while a batch or transaction is open on this thread: outside
  /// its undo (Batch/MadeInside.swift). Emptied when the outermost one ends.
  @exclusivity(unchecked) var madeInsideUndo: Set<ObjectIdentifier> = []
  /// Projections of `withBorrowedValue` running on this thread, and what they put off
  /// until the outermost one ends (Nodes/Stored+Borrow.swift).
  @exclusivity(unchecked) var readDepth = 0
  @exclusivity(unchecked) var afterRead: [() -> Void] = []
  /// Where `onChange` & co. register: the innermost `withGraphTracking`
  /// block or tracking-group run.
  @exclusivity(unchecked) var scope: TrackingScope?
  /// Why the handler running on this thread runs (nil outside handlers). Unowned: whoever
  /// sets it holds the cause across the run and puts the outer one back after it, so a
  /// delivery counts no reference here.
  @exclusivity(unchecked) unowned(unsafe) var cause: DeliveryCause?
  /// The last handler run that ended on this thread inside the running one.
  @exclusivity(unchecked) var endedRun: DeliveryCause?
  /// A persisted node's backing is saving on this thread (see `StorageSlot`).
  @exclusivity(unchecked) var isSavingUserDefault = false
  /// Contexts whose release waits for an outer release on this thread.
  @exclusivity(unchecked) var pendingReleases: [UnsafeMutableRawPointer] = []
  @exclusivity(unchecked) var isReleasing = false
  /// The registrar this thread's next Observation probe reads, kept by the node whose
  /// read finds it tracked (Observation/TrackingProbe.swift). Retained by this state;
  /// unmanaged, so that a probe counts no reference.
  @exclusivity(unchecked) var spareRegistrar: Unmanaged<NodeObservation>?
  /// The value comparators this thread looked up last (Core/Equality.swift).
  let recentComparators = Equality.RecentComparators()
  /// ``ProbeSubject/shared``, kept here: the global's every use would go through its
  /// once-token, a runtime call on every probe.
  let probeSubject: Unmanaged<ProbeSubject> = .passUnretained(.shared)
  /// How many times the probe's key was hashed on this thread.
  @exclusivity(unchecked) var probeKeyHashes: UInt = 0
  /// ``TrackingProbe/isTrusted``, asked once per thread (a global's every use would go
  /// through its once-token).
  @exclusivity(unchecked) var probeIsTrusted: Bool?

  deinit { spareRegistrar?.release() }

  /// `body` with this thread's state, borrowed: no reference is counted. One call of
  /// `body`, so that it is inlined here.
  @inline(__always)
  static func withCurrent<R>(_ body: (ThreadState) -> R) -> R {
    let raw = sg_binding_slot()!.pointee
    let state = raw.map { Unmanaged<ThreadState>.fromOpaque($0) } ?? .passUnretained(current)
    return state._withUnsafeGuaranteedRef(body)
  }

  static var current: ThreadState {
    let slot = sg_binding_slot()!
    if let raw = slot.pointee { return Unmanaged<ThreadState>.fromOpaque(raw).takeUnretainedValue() }
    _ = releasedAtThreadExit
    let state = ThreadState()
    slot.pointee = Unmanaged.passRetained(state).toOpaque()  // lives as long as the thread
    return state
  }

  /// Registered once: the core hands each thread's state back at its exit.
  private static let releasedAtThreadExit: Void = sg_binding_slot_set_destructor { raw in
    Unmanaged<ThreadState>.fromOpaque(raw!).release()
  }

  /// `body` with this thread's state, borrowed (no reference is counted); nil, without
  /// creating the state, when this thread never needed one.
  @inlinable @inline(__always)
  static func withExisting<R>(_ body: (ThreadState) -> R?) -> R? {
    guard let raw = sg_binding_slot()!.pointee else { return nil }
    return Unmanaged<ThreadState>.fromOpaque(raw)._withUnsafeGuaranteedRef(body)
  }

  /// `current` without creating it: nil when this thread never needed one.
  @inlinable
  static var existing: ThreadState? {
    sg_binding_slot()!.pointee.map { Unmanaged<ThreadState>.fromOpaque($0).takeUnretainedValue() }
  }
}

/// Releases the Swift objects C nodes retained as their context. Releasing
/// one can free a closure that held the next node of a chain, whose release
/// frees the next closure... A chain of 100k nodes would recurse 100k deep;
/// instead, releases started during a release wait in a list that the
/// outermost one drains.
enum ContextRelease {
  static func release(_ context: UnsafeMutableRawPointer) {
    let state = ThreadState.current
    if state.isReleasing {
      state.pendingReleases.append(context)
      return
    }
    state.isReleasing = true
    Unmanaged<AnyObject>.fromOpaque(context).release()
    while let next = state.pendingReleases.popLast() {
      Unmanaged<AnyObject>.fromOpaque(next).release()
    }
    state.isReleasing = false
  }
}
