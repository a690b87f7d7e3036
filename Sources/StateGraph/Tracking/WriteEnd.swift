import StateGraphCore

#if !canImport(Darwin)
  import Synchronization

  /// How many ``WriteEnd``s wait for their write to return. Zero almost always,
  /// and then a write skips the thread-local look-up for one relaxed load. A
  /// thread's own increment is seen by its own later loads, and only the
  /// thread that took a write end releases it.
  @usableFromInline let pendingWriteEnds = Atomic<Int>(0)
#endif

/// The end of the write whose effects this thread is running: released once
/// the thread's outermost write, batch end or effect creation has returned,
/// when every effect that write reached has run or been found unchanged.
/// A scheduled tracking group takes one in its effect's run on the writer's
/// stack, and its re-run waits for it (see ``TrackingGroup``, "Owners
/// first"). `@unchecked Sendable`: `isReleased` is guarded by `lock`.
@usableFromInline
final class WriteEnd: @unchecked Sendable {
  private let lock = ValueLock()
  @exclusivity(unchecked) private var released = false  // guarded by `lock`

  var isReleased: Bool {
    lock.lock()  // the flag only
    defer { lock.unlock() }
    return released
  }

  private func release() {
    lock.lock()  // the flag only
    released = true
    lock.unlock()
  }

  /// A write end for the effects this thread runs now; call inside an
  /// effect's run only.
  static func current() -> WriteEnd {
    let end = WriteEnd()
    ThreadState.current.writeEnds.append(end)
    #if !canImport(Darwin)
      pendingWriteEnds.add(1, ordering: .relaxed)
    #endif
    return end
  }

  /// Called after each write, batch end and effect creation: releases this
  /// thread's write ends when that was its outermost one (no batch open, no
  /// callback running), whose effects have all run now.
  @inlinable @inline(__always)
  static func writeReturned() {
    #if !canImport(Darwin)
      if pendingWriteEnds.load(ordering: .relaxed) == 0 { return }
    #endif
    releaseIfOutermost()
  }

  @usableFromInline
  static func releaseIfOutermost() {
    guard let state = ThreadState.existing, !state.writeEnds.isEmpty else { return }
    guard sg_batch_depth() == 0, sg_current() == nil else { return }
    let ends = state.writeEnds
    state.writeEnds = []
    #if !canImport(Darwin)
      pendingWriteEnds.subtract(ends.count, ordering: .relaxed)
    #endif
    for end in ends { end.release() }
  }
}
