import StateGraphCore

#if canImport(Combine)
  import Combine
#endif

/// Runs `body` and returns a subscription owning everything it registered:
/// `onChange` handlers, `Computed` nodes created inline, tracking groups.
/// Keep the subscription to keep them alive; release or cancel it to stop them.
///
/// ```swift
/// subscription = withGraphTracking {
///   Computed { _ in viewModel.stockLevel > viewModel.itemsInCart }
///     .onChange { isAvailable in print(isAvailable ? "available" : "sold out") }
///   viewModel.$stockLevel.onChange { print("stock: \($0)") }
/// }
/// ```
///
/// Tracking groups and maps registered inside re-run with
/// ``GraphDelivery/scheduled`` delivery; ``withGraphTracking(delivery:_:)``
/// chooses.
public func withGraphTracking(_ body: () throws -> Void) rethrows -> StateGraphSubscription {
  try withGraphTracking(delivery: .scheduled, body)
}

/// Like ``withGraphTracking(_:)``, with the tracking groups and maps
/// registered inside re-running as `delivery` says.
///
/// ```swift
/// let audit = withGraphTracking(delivery: .synchronous) {
///   withGraphTrackingGroup { log.append(model.count) }  // inside each write
/// }
/// ```
public func withGraphTracking(
  delivery: GraphDelivery, _ body: () throws -> Void
) rethrows -> StateGraphSubscription {
  let scope = TrackingScope(delivery: delivery)
  try scope.activate(body)
  return scope.subscription
}

#if canImport(Combine)
  /// ``withGraphTracking(_:)`` for a Combine `AnyCancellable`, as
  /// swift-state-graph's UIKit samples keep it: `subscription = withGraphTracking { … }` with
  /// `subscription: AnyCancellable?`.
  @_disfavoredOverload
  public func withGraphTracking(_ body: () throws -> Void) rethrows -> AnyCancellable {
    AnyCancellable(try withGraphTracking(delivery: .scheduled, body) as StateGraphSubscription)
  }

  /// ``withGraphTracking(delivery:_:)`` for a Combine `AnyCancellable`.
  @_disfavoredOverload
  public func withGraphTracking(
    delivery: GraphDelivery, _ body: () throws -> Void
  ) rethrows -> AnyCancellable {
    AnyCancellable(try withGraphTracking(delivery: delivery, body) as StateGraphSubscription)
  }
#endif

/// When the tracking groups and maps of a ``withGraphTracking(delivery:_:)``
/// scope re-run after a change. Their first run always happens during the
/// registration; `onChange(_:)` handlers deliver every value in order either way
/// (see <doc:ThreadsAndObserverOrder>).
///
/// ```swift
/// let ui = withGraphTracking {  // scheduled: off the writer's stack
///   withGraphTrackingGroup { label.text = "\(model.count)" }
/// }
/// let audit = withGraphTracking(delivery: .synchronous) {  // inside each write
///   withGraphTrackingGroup { log.append(model.count) }
/// }
/// ```
public struct GraphDelivery: Sendable, Hashable {
  let isSynchronous: Bool

  /// The default. The first change after a run schedules one re-run with the
  /// handler's isolation: a job on its actor, or a task of its own when it was
  /// registered without one. Changes before that re-run starts merge into it,
  /// and it reads the state as it is then. A re-run never happens inside the
  /// write that caused it, so a writer never waits for a handler, nor runs one
  /// under a lock it holds.
  public static let scheduled = GraphDelivery(isSynchronous: false)

  /// A re-run happens right after the write (or the outermost batch) that
  /// caused it, on the writing thread, once per write, when the handler has
  /// no actor isolation or the write happens on its actor; otherwise it hops
  /// to the actor as a scheduled re-run does. Costs no task per re-run, and
  /// sees every intermediate state; the writer runs the handler's work.
  public static let synchronous = GraphDelivery(isSynchronous: true)
}

/// Runs `body` now and again whenever a node it read in its last run changes.
/// Only what the last run read is tracked, so a branch not taken costs
/// nothing. Groups and handlers created inside `body` belong to that run:
/// they are torn down and created afresh each time it runs again.
///
/// Must be called inside ``withGraphTracking(_:)``. The first run
/// happens now. A change schedules the next run with the caller's actor
/// isolation (on its actor, or in a task of its own when the caller has
/// none), never inside the write; changes made before it starts merge into
/// it, and it reads the state as it is then. A scope with
/// ``GraphDelivery/synchronous`` delivery re-runs inside each write instead
/// (see <doc:ThreadsAndObserverOrder>). Each run first cancels everything
/// the previous run registered. Runs never overlap, so `body` may keep
/// state of its own.
///
/// `body` takes the isolation of the code that registers it: on the main
/// actor or in an actor it may touch that actor's state; outside any actor
/// it is `@Sendable`, since its runs happen in tasks or on writing threads
/// (see <doc:ObservingChanges>).
///
/// ```swift
/// withGraphTracking {
///   withGraphTrackingGroup {
///     print("count: \(counter.wrappedValue)")
///     if featureEnabled.wrappedValue { print("feature: \(featureData.wrappedValue)") }
///   }
/// }
/// ```
///
/// `file` and `line` name the group when groups keep re-running each other
/// without end, which stops the program.
public func withGraphTrackingGroup(
  @_inheritActorContext(always) _ body: @escaping @isolated(any) @Sendable () -> Void,
  isolation: isolated (any Actor)? = #isolation,
  file: StaticString = #fileID, line: UInt = #line
) {
  // The group runs the body with its isolation only (see TrackingGroup).
  TrackingGroup.register(
    "withGraphTrackingGroup", body.isolation, file, line, IsolatedHandler.plain(body))
}

/// Tracks `projection` like a tracking group and calls `onChange` with its
/// first value and with each different value after that.
///
/// ```swift
/// withGraphTracking {
///   withGraphTrackingMap({ cart.items.count }) { count in badge.text = "\(count)" }
/// }
/// ```
///
/// `projection` and `onChange` run as a ``withGraphTrackingGroup(_:isolation:file:line:)``
/// body does: with the caller's isolation, one run at a time, scheduled after
/// a change (several changes merge into one run, so `onChange` hears the
/// value as it is when the run starts), so outside any actor both are
/// `@Sendable`. A closure that names its own isolation gives it to both.
/// With `initial` false, the handler hears from the first change on.
public func withGraphTrackingMap<Value: Equatable>(
  @_inheritActorContext(always) _ projection: @escaping @isolated(any) @Sendable () -> Value,
  initial: Bool = true,
  @_inheritActorContext(always) onChange: @escaping @isolated(any) @Sendable (Value) -> Void,
  isolation: isolated (any Actor)? = #isolation,
  file: StaticString = #fileID, line: UInt = #line
) {
  withGraphTrackingMap(
    projection, filter: DistinctFilter(), initial: initial, onChange: onChange,
    isolation: isolation, file: file, line: line)
}

/// Like ``withGraphTrackingMap(_:initial:onChange:isolation:file:line:)``,
/// passing each value of `projection` through `filter`, which decides what
/// reaches `onChange`. With `initial` false, the first value only goes
/// through the filter (so it compares later values with it); the handler
/// hears from the first change on.
///
/// ```swift
/// withGraphTracking {
///   withGraphTrackingMap({ progress.wrappedValue }, filter: PassthroughFilter()) { value in
///     print("progress: \(value)")  // every run, equal values included
///   }
/// }
/// ```
public func withGraphTrackingMap<Value>(
  @_inheritActorContext(always) _ projection: @escaping @isolated(any) @Sendable () -> Value,
  filter: some GraphFilter<Value>, initial: Bool = true,
  @_inheritActorContext(always) onChange: @escaping @isolated(any) @Sendable (Value) -> Void,
  isolation: isolated (any Actor)? = #isolation,
  file: StaticString = #fileID, line: UInt = #line
) {
  let caller = "withGraphTrackingMap"
  let runsWith = IsolatedHandler.shared(projection.isolation, onChange.isolation, caller)
  // Both run in the group's runs, with `runsWith`: each one's isolation or none.
  let deliver = FilteredDelivery(filter, initial: initial, IsolatedHandler.plain(onChange))
  let projection = IsolatedHandler.plain(projection)
  TrackingGroup.register(caller, runsWith, file, line) { deliver(projection()) }
}

/// Tracks `map(dependency)` and calls `onChange` with its first value and
/// each different value after that, while `dependency` lives: it is held
/// weakly, and once it is gone nothing is tracked any more.
///
/// ```swift
/// withGraphTracking {
///   withGraphTrackingMap(from: viewModel, map: { $0.count }) { count in print(count) }
/// }
/// ```
public func withGraphTrackingMap<Dependency: AnyObject, Value: Equatable>(
  from dependency: Dependency,
  @_inheritActorContext(always) map: @escaping @isolated(any) @Sendable (Dependency) -> Value,
  initial: Bool = true,
  @_inheritActorContext(always) onChange: @escaping @isolated(any) @Sendable (Value) -> Void,
  isolation: isolated (any Actor)? = #isolation,
  file: StaticString = #fileID, line: UInt = #line
) {
  withGraphTrackingMap(
    from: dependency, map: map, filter: DistinctFilter(), initial: initial, onChange: onChange,
    isolation: isolation, file: file, line: line)
}

/// Like ``withGraphTrackingMap(from:map:initial:onChange:isolation:file:line:)``,
/// passing each value through `filter` (see
/// ``withGraphTrackingMap(_:filter:initial:onChange:isolation:file:line:)``).
///
/// ```swift
/// withGraphTracking {
///   withGraphTrackingMap(from: viewModel, map: { $0.count }, filter: PassthroughFilter()) {
///     print($0)
///   }
/// }
/// ```
public func withGraphTrackingMap<Dependency: AnyObject, Value>(
  from dependency: Dependency,
  @_inheritActorContext(always) map: @escaping @isolated(any) @Sendable (Dependency) -> Value,
  filter: some GraphFilter<Value>, initial: Bool = true,
  @_inheritActorContext(always) onChange: @escaping @isolated(any) @Sendable (Value) -> Void,
  isolation: isolated (any Actor)? = #isolation,
  file: StaticString = #fileID, line: UInt = #line
) {
  let caller = "withGraphTrackingMap"
  let runsWith = IsolatedHandler.shared(map.isolation, onChange.isolation, caller)
  // Both run in the group's runs, with `runsWith`: each one's isolation or none.
  let deliver = FilteredDelivery(filter, initial: initial, IsolatedHandler.plain(onChange))
  let map = IsolatedHandler.plain(map)
  weak let dependency = dependency
  TrackingGroup.register(caller, runsWith, file, line) {
    guard let dependency else { return }  // reads nothing: never runs again
    deliver(map(dependency))
  }
}

/// A map's filter and handler. Called by runs of its group only, which never
/// overlap, so the filter's state needs no lock.
private final class FilteredDelivery<F: GraphFilter> {
  private var filter: F
  private var skipsFirst: Bool  // `initial: false`: the first value seeds the filter only
  private let onChange: (F.Value) -> Void

  init(_ filter: F, initial: Bool, _ onChange: @escaping (F.Value) -> Void) {
    self.filter = filter
    skipsFirst = !initial
    self.onChange = onChange
  }

  func callAsFunction(_ value: F.Value) {
    sg_untracked_begin()  // the filter's and handler's reads are not the projection's
    defer { sg_untracked_end() }
    let passed = filter.send(value: value)
    if skipsFirst {
      skipsFirst = false
      return
    }
    if let passed { onChange(passed) }
  }
}
