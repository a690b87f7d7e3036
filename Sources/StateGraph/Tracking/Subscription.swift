#if canImport(Combine)
  @_exported import Combine
#endif

/// Owns effects registered by `onChange`, tracking groups and the like, and
/// stops them all when cancelled or released.
final class TrackingScope: @unchecked Sendable {
  private let lock = ValueLock()
  private var effects: [GraphEffect] = []
  private var children: [TrackingScope] = []
  private var isCancelled = false

  deinit { cancel() }

  func add(_ effect: GraphEffect) {
    lock.lock()
    let cancelled = isCancelled
    if !cancelled { effects.append(effect) }
    lock.unlock()
    if cancelled { effect.cancel() }
  }

  func add(_ child: TrackingScope) {
    lock.lock()
    let cancelled = isCancelled
    if !cancelled { children.append(child) }
    lock.unlock()
    if cancelled { child.cancel() }
  }

  /// Stops everything registered so far; the scope stays usable only when
  /// `permanently` is false (a tracking group clears its children each run).
  func cancel(permanently: Bool = true) {
    lock.lock()
    if permanently { isCancelled = true }
    let (effects, children) = (self.effects, self.children)
    self.effects = []
    self.children = []
    lock.unlock()
    // Outside the lock: destroying effects may run user code (deinit).
    for effect in effects { effect.cancel() }
    for child in children { child.cancel() }
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
  public typealias StateGraphSubscription = AnyCancellable

  extension TrackingScope {
    var subscription: StateGraphSubscription { AnyCancellable { self.cancel() } }
  }
#else
  /// What ``withGraphTracking(_:)`` returns: keep it to keep the handlers
  /// registered inside alive. Releasing it, or calling ``cancel()``, stops
  /// them all. Also spelled `AnyCancellable`.
  public final class StateGraphSubscription: Hashable, @unchecked Sendable {
    private let scope: TrackingScope

    init(scope: TrackingScope) { self.scope = scope }

    deinit { scope.cancel() }

    /// Stops every handler this subscription owns. Idempotent.
    public func cancel() { scope.cancel() }

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
