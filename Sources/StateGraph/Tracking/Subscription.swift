#if canImport(Combine)
  import Combine
  // Combine's one type that graph code names (`var subscription: AnyCancellable?` after
  // `import StateGraph` alone, as upstream's samples write it); the rest of Combine is
  // imported where it is used.
  @_exported import struct Combine.AnyCancellable
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
  /// Returns once none of its runs is running, queued or scheduled; true
  /// when it had to wait for that.
  func settle() async -> Bool
}

extension TrackingMember {
  func cancel() {
    var inProgress: [any TrackingMember] = []
    cancel(&inProgress)
  }

  func waitUntilIdle() async {}

  func settle() async -> Bool { false }
}

/// Owns effects registered by `onChange`, tracking groups and the like, and
/// stops them all when cancelled or released. `@unchecked`: the mutable
/// fields are touched under `lock` only.
final class TrackingScope: TrackingMember, @unchecked Sendable {
  /// How the tracking groups and maps registered in it re-run.
  let delivery: GraphDelivery
  private let lock = ValueLock()
  @exclusivity(unchecked) private var members: [any TrackingMember] = []
  @exclusivity(unchecked) private var isCancelled = false

  /// The tracking group whose runs register here (its children), if any:
  /// set once, by the group's init, before the scope is shared.
  weak var group: TrackingGroup?

  init(delivery: GraphDelivery) { self.delivery = delivery }

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

  func settle() async -> Bool {
    lock.lock()  // a snapshot of the list; members settle outside
    let members = self.members
    lock.unlock()
    var waited = false
    for member in members where await member.settle() { waited = true }
    return waited
  }

  /// Returns once every run its members had queued or scheduled has run,
  /// and those these runs queued in turn: passes over the members until one
  /// finds nothing to wait for.
  func settleAll() async {
    while await settle() {}
  }

  /// Runs `body` with this scope as the place registrations go.
  func activate<R>(_ body: () throws -> R) rethrows -> R {
    let state = ThreadState.current
    let outer = state.scope
    state.scope = self
    defer { state.scope = outer }
    return try body()
  }

  static var current: TrackingScope? {
    ThreadState.withExisting { $0.scope }
  }
}

/// What ``withGraphTracking(_:)`` returns: keep it to keep the handlers
/// registered inside alive. Releasing it, or calling ``cancel()``, stops them
/// all. Also spelled `AnyCancellable` where Combine does not exist; where it
/// does, a subscription is a Combine `Cancellable`, `AnyCancellable(subscription)`
/// wraps it, and ``withGraphTracking(_:)`` can return an `AnyCancellable` directly.
///
/// ```swift
/// let subscription = withGraphTracking {
///   withGraphTrackingGroup { print("count: \(counter.wrappedValue)") }
/// }
/// counter.wrappedValue = 1
/// await subscription.settled()  // "count: 1" has been printed
/// ```
public final class StateGraphSubscription: Hashable, Sendable {
  private let scope: TrackingScope

  init(scope: TrackingScope) { self.scope = scope }

  deinit { scope.cancel() }

  /// Stops every handler this subscription owns. Idempotent, callable from
  /// any thread and from inside a handler.
  ///
  /// Once it returns, no run of these handlers starts, including re-runs
  /// already scheduled and deliveries on their way to an actor. It does not
  /// wait for a run already in progress on another thread or actor (waiting
  /// there could deadlock, for example with a handler that waits for the
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

  /// Returns once every run of this subscription's handlers that was
  /// scheduled before the call has run, and every run those runs scheduled
  /// in turn: tracking-group and map re-runs, and deliveries on their way to
  /// an actor. Writes made meanwhile by other code may schedule more; call it
  /// again after them. It suspends rather than blocks, so the handlers it
  /// waits for may need the caller's actor. Called from inside one of the
  /// handlers it waits for, it never returns.
  ///
  /// ```swift
  /// let subscription = withGraphTracking {
  ///   withGraphTrackingMap({ cart.items.count }) { print("items: \($0)") }
  /// }
  /// cart.items.append(item)
  /// await subscription.settled()  // "items: 1" has been printed
  /// ```
  public func settled() async { await scope.settleAll() }

  /// Keeps the subscription in a set, Combine style.
  public func store(in set: inout Set<StateGraphSubscription>) { set.insert(self) }

  /// Whether both are the same subscription.
  public static func == (lhs: StateGraphSubscription, rhs: StateGraphSubscription) -> Bool {
    lhs === rhs
  }

  /// Hashes the subscription's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension TrackingScope {
  var subscription: StateGraphSubscription { StateGraphSubscription(scope: self) }
}

#if canImport(Combine)
  extension StateGraphSubscription: Cancellable {
    /// Keeps the subscription in a set of Combine cancellables.
    public func store(in set: inout Set<AnyCancellable>) { AnyCancellable(self).store(in: &set) }
  }
#else
  /// swift-state-graph's UIKit samples' name for a ``StateGraphSubscription``,
  /// where Combine does not exist.
  public typealias AnyCancellable = StateGraphSubscription
#endif
