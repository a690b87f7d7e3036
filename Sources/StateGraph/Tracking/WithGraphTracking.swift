import StateGraphCore

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
public func withGraphTracking(_ body: () throws -> Void) rethrows -> StateGraphSubscription {
  let scope = TrackingScope()
  try scope.activate(body)
  return scope.subscription
}

/// Runs `body` now and again whenever a node it read in its last run changes.
/// Only what the last run read is tracked, so a branch not taken costs
/// nothing. Groups and handlers created inside `body` belong to that run:
/// they are torn down and created afresh each time it runs again.
///
/// Must be called inside ``withGraphTracking(_:)``. `body` keeps the caller's
/// actor isolation (see <doc:ThreadsAndObserverOrder>): it runs again at
/// once when the write happens on that actor (or the group has none), else on
/// the actor later, once for any number of writes meanwhile. Each run first
/// cancels everything the previous run registered. Runs never overlap, so
/// `body` may keep state of its own.
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
  _ body: @escaping () -> Void, isolation: isolated (any Actor)? = #isolation,
  file: StaticString = #fileID, line: UInt = #line
) {
  TrackingGroup.register("withGraphTrackingGroup", isolation, file, line, body)
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
/// body does: with the caller's isolation, one run at a time. With `initial`
/// false, the handler hears from the first change on.
public func withGraphTrackingMap<Value: Equatable>(
  _ projection: @escaping () -> Value, initial: Bool = true,
  onChange: @escaping (Value) -> Void, isolation: isolated (any Actor)? = #isolation,
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
  _ projection: @escaping () -> Value, filter: some Filter<Value>, initial: Bool = true,
  onChange: @escaping (Value) -> Void, isolation: isolated (any Actor)? = #isolation,
  file: StaticString = #fileID, line: UInt = #line
) {
  let deliver = FilteredDelivery(filter, initial: initial, onChange)
  TrackingGroup.register("withGraphTrackingMap", isolation, file, line) { deliver(projection()) }
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
  from dependency: Dependency, map: @escaping (Dependency) -> Value, initial: Bool = true,
  onChange: @escaping (Value) -> Void, isolation: isolated (any Actor)? = #isolation,
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
  from dependency: Dependency, map: @escaping (Dependency) -> Value,
  filter: some Filter<Value>, initial: Bool = true, onChange: @escaping (Value) -> Void,
  isolation: isolated (any Actor)? = #isolation,
  file: StaticString = #fileID, line: UInt = #line
) {
  let deliver = FilteredDelivery(filter, initial: initial, onChange)
  weak let dependency = dependency
  TrackingGroup.register("withGraphTrackingMap", isolation, file, line) {
    guard let dependency else { return }  // reads nothing: never runs again
    deliver(map(dependency))
  }
}

/// A map's filter and handler. Called by runs of its group only, which never
/// overlap, so the filter's state needs no lock.
private final class FilteredDelivery<F: Filter> {
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
