import StateGraphCore

/// The Swift wrapper's per-thread state, kept in the C core's binding slot
/// (the core's thread state is per logical thread: a helper thread that
/// continues a deep evaluation sees the state of the thread it works for).
final class ThreadState {
  /// The innermost open ``withGraphBatch(_:)`` transaction.
  var transaction: Transaction?
  /// Where `onChange` & co. register: the innermost `withGraphTracking`
  /// block or tracking-group run.
  var scope: TrackingScope?

  static var current: ThreadState {
    let slot = sg_binding_slot()!
    if let raw = slot.pointee { return Unmanaged<ThreadState>.fromOpaque(raw).takeUnretainedValue() }
    let state = ThreadState()
    slot.pointee = Unmanaged.passRetained(state).toOpaque()  // lives as long as the thread
    return state
  }

  /// `current` without creating it: nil when this thread never needed one.
  static var existing: ThreadState? {
    sg_binding_slot()!.pointee.map { Unmanaged<ThreadState>.fromOpaque($0).takeUnretainedValue() }
  }
}
