extension Stored {
  /// Sets the closure that runs after every assignment to ``wrappedValue``, with the value
  /// before the assignment and the value assigned.
  ///
  /// ```swift
  /// let count = Stored(wrappedValue: 0)
  /// count.onDidSet { oldValue, newValue in print("\(oldValue) -> \(newValue)") }
  /// count.wrappedValue = 1  // prints "0 -> 1"
  /// count.wrappedValue = 1  // prints "1 -> 1": every assignment, as a `didSet` observer
  /// ```
  ///
  /// This is the node-level twin of a property's `didSet`, as in swift-state-graph: it runs
  /// for each assignment, equal values and writes inside ``withGraphBatch(_:)`` and
  /// ``withGraphTransaction(_:)`` included (inside a transaction it sees, and writes, the
  /// transaction's staged state),
  /// synchronously on the writing thread once the node has taken the value and no lock of
  /// the node is held (the closure may read or write the node again). Changes that reach a
  /// persisted node from outside (another process, another object writing the same key)
  /// are not assignments and do not call it; observe the node for those.
  ///
  /// A node has one handler: a second call replaces the first. `oldValue` is read just
  /// before the assignment, so when two threads assign at once each sees the value before
  /// its own write, whichever of them lands first.
  public func onDidSet(_ handler: @escaping (_ oldValue: Value, _ newValue: Value) -> Void) {
    // Only the handler changes under the lock; the one it replaces is released after.
    let replaced = lock.withLock {
      madeSide()._withUnsafeGuaranteedRef { side in
        defer { side.didSetHandler = handler }
        return side.didSetHandler
      }
    }
    withExtendedLifetime(replaced) {}
  }

  /// The write of ``wrappedValue`` when a handler is set: reads the old value, writes, then
  /// calls the handler with no lock held.
  @usableFromInline
  func assignReportingDidSet(_ newValue: Value) {
    lock.lock()
    let handler = side?.didSetHandler
    let oldValue = value
    lock.unlock()
    assign(newValue)
    handler?(oldValue, newValue)
  }
}

extension Stored {
  /// Takes a value published by a storage wrapper (``GraphUserDefault``) when `isCurrent`,
  /// checked under the value lock, says it is not older than the one held; calls the
  /// `onDidSet` handler only when the value really changed, since a publication that
  /// repeats the held value is an echo, not an assignment.
  func publishCallingDidSet(_ newValue: Value, isCurrent: @escaping () -> Bool) {
    let handler = lock.withLock { side?.didSetHandler }
    var oldValue: Value?
    replace(
      with: newValue,
      isCurrent: {
        guard isCurrent() else { return false }
        if !self.isSame(self.value, newValue) { oldValue = self.value }
        return true
      })
    if let handler, let oldValue { handler(oldValue, newValue) }
  }
}
