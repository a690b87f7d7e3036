#if canImport(Combine)
  @_exported import Combine
#endif

/// Something a ``TrackingScope`` owns and stops: an effect, a handler's
/// ``DeliveryQueue``, a tracking group, a nested scope.
protocol TrackingMember: AnyObject, Sendable {
  /// Stops it: once this returns, none of its handlers starts a new run.
  /// Appends the members whose runs already in progress a waiting cancel
  /// must wait for.
  func cancel(_ inProgress: inout [any TrackingMember])
  /// Returns once no run is in progress (call after `cancel`).
  func waitUntilIdle() async
}

extension TrackingMember {
  func cancel() {
    var inProgress: [any TrackingMember] = []
    cancel(&inProgress)
  }

  func waitUntilIdle() async {}
}

/// Owns effects registered by `onChange`, tracking groups and the like, and
/// stops them all when cancelled or released. `@unchecked`: the mutable
/// fields are touched under `lock` only.
final class TrackingScope: TrackingMember, @unchecked Sendable {
  private let lock = ValueLock()
  @exclusivity(unchecked) private var members: [any TrackingMember] = []
  @exclusivity(unchecked) private var isCancelled = false

  deinit { cancel() }

  func add(_ member: any TrackingMember) {
    lock.lock()  // the list only; a member cancelled here is cancelled outside
    let cancelled = isCancelled
    if !cancelled { members.append(member) }
    lock.unlock()
    if cancelled { member.cancel() }
  }

  func cancel(_ inProgress: inout [any TrackingMember]) {
    cancel(permanently: true, &inProgress)
  }

  /// Stops everything registered so far; the scope stays usable only when
  /// `permanently` is false (a tracking group clears its children each run).
  func cancel(permanently: Bool, _ inProgress: inout [any TrackingMember]) {
    lock.lock()  // the list only: cancelling members runs deinits, so outside
    if permanently { isCancelled = true }
    let members = self.members
    self.members = []
    lock.unlock()
    for member in members { member.cancel(&inProgress) }
  }

  func cancel(permanently: Bool) {
    var inProgress: [any TrackingMember] = []
    cancel(permanently: permanently, &inProgress)
  }

  /// Stops everything, then waits until no handler run that had started
  /// before is still going.
  func cancelAndWait() async {
    var inProgress: [any TrackingMember] = []
    cancel(&inProgress)
    for member in inProgress { await member.waitUntilIdle() }
  }

  /// Runs `body` with this scope as the place registrations go.
  func activate<R>(_ body: () throws -> R) rethrows -> R {
    let state = ThreadState.current
    let outer = state.scope
    state.scope = self
    defer { state.scope = outer }
    return try body()
  }

  static var current: TrackingScope? { ThreadState.existing?.scope }
}

#if canImport(Combine)
  /// What ``withGraphTracking(_:)`` returns. On Apple platforms this is
  /// Combine's `AnyCancellable`, so both names accept it.
  ///
  /// `cancel()` (or releasing it) stops every handler at once: no handler
  /// run starts after it returns. It does not wait for a run already in
  /// progress on another thread or actor; `StateGraphSubscription` on other
  /// platforms offers `cancelAndWait()` for that.
  public typealias StateGraphSubscription = AnyCancellable

  extension TrackingScope {
    var subscription: StateGraphSubscription { AnyCancellable { self.cancel() } }
  }
#else
  /// What ``withGraphTracking(_:)`` returns: keep it to keep the handlers
  /// registered inside alive. Releasing it, or calling ``cancel()``, stops
  /// them all. Also spelled `AnyCancellable`.
  public final class StateGraphSubscription: Hashable, Sendable {
    private let scope: TrackingScope

    init(scope: TrackingScope) { self.scope = scope }

    deinit { scope.cancel() }

    /// Stops every handler this subscription owns. Idempotent, callable from
    /// any thread and from inside a handler.
    ///
    /// Once it returns, no run of these handlers starts, including
    /// deliveries already on their way to an actor. It does not wait for a
    /// run already in progress on another thread or actor (waiting there
    /// could deadlock, for example with a handler that waits for the
    /// canceller's thread); use ``cancelAndWait()`` for that.
    public func cancel() { scope.cancel() }

    /// Stops every handler, like ``cancel()``, then returns once no run of
    /// them is in progress anywhere. It suspends rather than blocks, so it
    /// cannot deadlock with a handler waiting for the caller's thread; from a
    /// task started inside a handler it returns after that run has returned.
    ///
    /// ```swift
    /// await subscription.cancelAndWait()
    /// // no handler of `subscription` runs now, nor will again
    /// ```
    public func cancelAndWait() async { await scope.cancelAndWait() }

    /// Keeps the subscription in a set, Combine style.
    public func store(in set: inout Set<StateGraphSubscription>) { set.insert(self) }

    public static func == (lhs: StateGraphSubscription, rhs: StateGraphSubscription) -> Bool {
      lhs === rhs
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
  }

  /// The name the seeds' UIKit samples use for a ``StateGraphSubscription``.
  public typealias AnyCancellable = StateGraphSubscription

  extension TrackingScope {
    var subscription: StateGraphSubscription { StateGraphSubscription(scope: self) }
  }
#endif
