/// The values of `apply` as an `AsyncStream`: its first value, then a new one
/// each time a node its last run read changes. `apply` runs as a
/// ``withGraphTrackingGroup(_:isolation:file:line:)`` body does: with the
/// caller's isolation (so outside any actor it is `@Sendable`), one run at
/// a time, changes made before a run starts merged into it. Tracking stops when the stream ends
/// (its consuming task is cancelled or the stream is released).
///
/// ```swift
/// for await total in withStateGraphTrackingStream(apply: { cart.total }) {
///   print("total: \(total)")
/// }
/// ```
///
/// An `AsyncStream` has one consumer: two loops over one stream share its
/// values. ``GraphTrackings`` gives each loop all of them.
public func withStateGraphTrackingStream<Value>(
  @_inheritActorContext(always) apply: @escaping @isolated(any) @Sendable () -> Value,
  isolation: isolated (any Actor)? = #isolation,
  file: StaticString = #fileID, line: UInt = #line
) -> AsyncStream<Value> {
  // The group runs `apply` with its isolation only (see TrackingGroup).
  let runsWith = apply.isolation
  let apply = IsolatedHandler.plain(apply)
  return AsyncStream { continuation in
    let subscription = withGraphTracking {
      TrackingGroup.register("withStateGraphTrackingStream", runsWith, file, line) {
        continuation.yield(apply())
      }
    }
    continuation.onTermination = { _ in subscription.cancel() }
  }
}

/// The values of a closure over graph nodes as an `AsyncSequence`, each loop
/// its own: the first value at once, then the latest value after each change
/// to a node the last run read. Changes made while the loop is busy are seen
/// together, as one value.
///
/// ```swift
/// for await name in GraphTrackings({ "\(first.wrappedValue) \(last.wrappedValue)" }) {
///   print(name)
/// }
/// ```
///
/// The closure runs first in the loop's first `next()`, then after each
/// change in a task of its own (like a tracking group registered without
/// isolation), so it is `@Sendable`. A loop tracks from its first `next()`
/// until it ends or its task is cancelled.
public struct GraphTrackings<Element: Sendable, Failure: Error>: AsyncSequence, Sendable {
  /// What an ``untilFinished(_:)`` closure returns: a value, or the end.
  public enum Iteration: Sendable {
    /// The next value.
    case next(Element)
    /// The end of the loop.
    case finish
  }

  private let emit: @Sendable () throws(Failure) -> Iteration

  /// Tracks `emit`, without end (a throw ends the loop with the error).
  public init(_ emit: @escaping @Sendable () throws(Failure) -> Element) {
    self.emit = { () throws(Failure) in .next(try emit()) }
  }

  /// Tracks `emit` until it returns `.finish`.
  ///
  /// ```swift
  /// for await count in GraphTrackings<Int, Never>.untilFinished({
  ///   counter.wrappedValue < 10 ? .next(counter.wrappedValue) : .finish
  /// }) { print(count) }
  /// ```
  public static func untilFinished(
    _ emit: @escaping @Sendable () throws(Failure) -> Iteration
  ) -> GraphTrackings<Element, Failure> {
    GraphTrackings(iterating: emit)
  }

  private init(iterating emit: @escaping @Sendable () throws(Failure) -> Iteration) {
    self.emit = emit
  }

  /// A loop of its own over the values.
  public func makeAsyncIterator() -> Iterator { Iterator(TrackingLoop(emit)) }

  /// One loop: its own tracking, started by the first `next()`.
  public struct Iterator: AsyncIteratorProtocol {
    private let loop: TrackingLoop<Element, Failure>

    fileprivate init(_ loop: TrackingLoop<Element, Failure>) { self.loop = loop }

    /// The first value, or the latest one after a change; nil once finished.
    public mutating func next() async throws(Failure) -> Element? { try await loop.next() }
  }
}

/// swift-state-graph's other name for a ``GraphTrackings`` whose closure does not throw:
/// `for await name in GraphObservation({ first.wrappedValue })`, and
/// `GraphObservation<Int>.untilFinished({ … })`.
public typealias GraphObservation<Element: Sendable> = GraphTrackings<Element, Never>

/// The state of one ``GraphTrackings`` loop: a tracking group that runs the
/// closure after each change and keeps its latest result for the consumer.
private final class TrackingLoop<Element: Sendable, Failure: Error>: @unchecked Sendable {
  // @unchecked: every `var` is guarded by `lock`.
  typealias Iteration = GraphTrackings<Element, Failure>.Iteration

  private let emit: @Sendable () throws(Failure) -> Iteration
  private let lock = ValueLock()
  private var subscription: StateGraphSubscription?
  private var latest: Result<Iteration, Failure>?
  private var waiter: CheckedContinuation<Void, Never>?
  private var isFinished = false

  init(_ emit: @escaping @Sendable () throws(Failure) -> Iteration) { self.emit = emit }

  deinit { subscription?.cancel() }

  func next() async throws(Failure) -> Element? {
    startIfNeeded()
    while true {
      lock.lock()  // takes the latest result, or waits for one
      if isFinished {
        lock.unlock()
        return nil
      }
      if let result = latest {
        latest = nil
        lock.unlock()
        switch result {
        case .success(.next(let element)): return element
        case .success(.finish): finish()
        case .failure(let error):
          finish()
          throw error
        }
        return nil
      }
      lock.unlock()
      await withTaskCancellationHandler {
        await withCheckedContinuation { waiter in
          lock.lock()  // a result or the cancellation may have come meanwhile
          let resumesNow = latest != nil || isFinished || Task.isCancelled
          if !resumesNow { self.waiter = waiter }
          lock.unlock()
          if resumesNow { waiter.resume() }
        }
      } onCancel: {
        finish()
      }
    }
  }

  private func startIfNeeded() {
    lock.lock()  // only the first `next()` starts the group
    let starts = subscription == nil && !isFinished
    lock.unlock()
    guard starts else { return }
    let subscription = withGraphTracking {
      withGraphTrackingGroup(
        { [weak self] in
          guard let self else { return }
          self.offer(Result { () throws(Failure) in try self.emit() })
        }, isolation: nil)
    }
    lock.lock()
    self.subscription = subscription
    lock.unlock()
  }

  /// A run's result replaces any the consumer has not taken yet.
  private func offer(_ result: Result<Iteration, Failure>) {
    lock.lock()  // the result in, the waiter out; resumed outside
    latest = result
    let waiter = self.waiter
    self.waiter = nil
    lock.unlock()
    waiter?.resume()
  }

  private func finish() {
    lock.lock()  // once: stops the group and wakes the consumer
    isFinished = true
    let subscription = self.subscription
    self.subscription = nil
    let waiter = self.waiter
    self.waiter = nil
    lock.unlock()
    subscription?.cancel()
    waiter?.resume()
  }
}
