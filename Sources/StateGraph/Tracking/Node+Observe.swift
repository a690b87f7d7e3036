extension GraphNode where Value: Sendable {
  /// The current value, then each new value, as an `AsyncSequence`.
  /// Observation stops when the iterating task ends or is cancelled.
  ///
  /// ```swift
  /// for await count in model.$count.observe() { print(count) }
  /// ```
  public func observe() -> AsyncStream<Value> {
    AsyncStream { continuation in
      let subscription = withGraphTracking {
        onChange(isolation: nil) { continuation.yield($0) }
      }
      continuation.onTermination = { _ in subscription.cancel() }
    }
  }

  /// Like `observe()`, yielding only what `filter` passes (see ``GraphFilter``).
  ///
  /// ```swift
  /// for await level in battery.observe(filter: ComparisonFilter { old, new in old - new >= 10 }) {
  ///   print("battery: \(level)%")
  /// }
  /// ```
  public func observe(filter: some GraphFilter<Value>) -> AsyncStream<Value> {
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
  public func observe() -> AsyncStream<Value> {
    AsyncStream { continuation in
      let subscription = withGraphTracking {
        onChange(isolation: nil) { continuation.yield($0) }
      }
      continuation.onTermination = { _ in subscription.cancel() }
    }
  }
}
