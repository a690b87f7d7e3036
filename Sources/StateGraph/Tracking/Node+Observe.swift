extension GraphNode where Value: Sendable {
  /// The current value, then each new value, as an `AsyncSequence`.
  /// Observation stops when the iterating task ends or is cancelled.
  ///
  /// ```swift
  /// for await count in model.$count.observe() { print(count) }
  /// ```
  public func observe() -> AsyncStream<Value> { observe(filter: .all) }

  /// Like `observe()`, yielding only what `filter` accepts.
  public func observe(filter: ChangeFilter<Value>) -> AsyncStream<Value> {
    AsyncStream { continuation in
      let subscription = withGraphTracking {
        onChange(filter: filter, isolation: nil) { continuation.yield($0) }
      }
      continuation.onTermination = { _ in subscription.cancel() }
    }
  }
}

extension GraphNode where Value: Equatable & Sendable {
  /// The current value, then each different value, as an `AsyncSequence`.
  public func observe() -> AsyncStream<Value> { observe(filter: .distinct) }
}
