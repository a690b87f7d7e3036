extension Stored {
  /// Projects the value without copying it: `projection` runs with the value borrowed and
  /// the node's value lock held, and its result is returned. For picking a small part out
  /// of a large value (one entry of a big dictionary) without a copy of the whole.
  ///
  /// ```swift
  /// let names = Stored(wrappedValue: [1: "First", 2: "Second"])
  /// let first = Computed { _ in names.withBorrowedValue { $0[1] } }
  /// ```
  ///
  /// The read counts as a read of ``wrappedValue``: a computation depends on the node, and
  /// Observation hears it. Inside a staged transaction the projection sees the
  /// transaction's value. The projection must only look at the value: reading or writing
  /// nodes, taking other locks or keeping the borrowed value is not supported (a write of
  /// this node from it would wait for itself). What it wants done once the read is over
  /// goes through ``deferUntilGraphReadCompletes(_:)``.
  public func withBorrowedValue<Result, Failure: Error>(
    _ projection: (borrowing Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    if let staging = Staging.current { return try projection(stagedRead(staging)) }
    let isOutside = GraphCore.readSayingIfOutside(node)
    lock.lock()
    // As `lockedValue(registering:)`: the registrar is made under the lock of the read.
    let observation =
      isOutside && (side?.observation != nil || TrackingProbe.isTracking())
      ? madeObservation() : nil
    let scope = DeferredReadWork.begin()
    defer {
      lock.unlock()
      observation?._withUnsafeGuaranteedRef { $0.access() }
      DeferredReadWork.end(scope)
    }
    return try projection(value)
  }
}

/// Runs `action` once the graph read this thread is inside (the projection of a
/// ``Stored/withBorrowedValue(_:)``) is over and its lock released, and returns nil; outside
/// such a read (inside a staged transaction too, where a projection holds no lock),
/// returns `action` without running it, for the caller to run.
///
/// ```swift
/// let title = store.withBorrowedValue { entries in
///   _ = deferUntilGraphReadCompletes { log.wrappedValue += 1 }  // after the read
///   return entries[id]?.title
/// }
/// ```
public func deferUntilGraphReadCompletes(_ action: @escaping () -> Void) -> (() -> Void)? {
  ThreadState.withCurrent { state in
    guard state.readDepth > 0 else { return action }
    state.afterRead.append(action)
    return nil
  }
}

/// The actions ``deferUntilGraphReadCompletes(_:)`` put off, run when the outermost
/// projection of this thread ends (also by a throw), in the order they came.
enum DeferredReadWork {
  static func begin() -> Unmanaged<ThreadState> {
    ThreadState.withCurrent { state in
      state.readDepth += 1
      return .passUnretained(state)
    }
  }

  static func end(_ scope: Unmanaged<ThreadState>) {
    scope._withUnsafeGuaranteedRef { state in
      state.readDepth -= 1
      guard state.readDepth == 0, !state.afterRead.isEmpty else { return }
      let actions = state.afterRead
      state.afterRead = []
      for action in actions { action() }
    }
  }
}
