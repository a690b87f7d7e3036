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
/// actor isolation (see <doc:ThreadsAndObserverOrder>).
///
/// ```swift
/// withGraphTracking {
///   withGraphTrackingGroup {
///     print("count: \(counter.wrappedValue)")
///     if featureEnabled.wrappedValue { print("feature: \(featureData.wrappedValue)") }
///   }
/// }
/// ```
public func withGraphTrackingGroup(
  isolation: isolated (any Actor)? = #isolation, _ body: @escaping () -> Void
) {
  TrackingGroup.start(in: TrackingScope.required("withGraphTrackingGroup"), Delivery(isolation), body)
}

/// Tracks `projection` like a computed value and calls `onChange` with its
/// first value and with each different value after that.
///
/// ```swift
/// withGraphTracking {
///   withGraphTrackingMap({ cart.items.count }) { count in badge.text = "\(count)" }
/// }
/// ```
public func withGraphTrackingMap<Value: Equatable>(
  _ projection: @escaping @Sendable () -> Value, isolation: isolated (any Actor)? = #isolation,
  onChange: @escaping (Value) -> Void
) {
  let scope = TrackingScope.required("withGraphTrackingMap")
  let delivery = Delivery(isolation)
  let last = LastValue<Value>()
  scope.add(
    GraphEffect(name: "withGraphTrackingMap") {
      let value = projection()
      guard last.update(value, .distinct) else { return }
      sg_untracked_begin()
      defer { sg_untracked_end() }
      nonisolated(unsafe) let onChange = onChange
      delivery { onChange(value) }
    })
}

/// One `withGraphTrackingGroup`: an effect running the body with a child
/// scope that is emptied before each run. When a run is due on a thread that
/// is not the body's actor, the effect retires and a new one starts on the
/// actor, so the body's reads are always tracked where it runs.
enum TrackingGroup {
  static func start(in parent: TrackingScope, _ delivery: Delivery, _ body: @escaping () -> Void) {
    let children = TrackingScope()
    parent.add(children)
    // Plain flags: the effect's runs never overlap (the core claims it).
    var isFirstRun = true
    var isRetired = false
    nonisolated(unsafe) var effect: GraphEffect?
    effect = GraphEffect(name: "withGraphTrackingGroup") {
      defer { isFirstRun = false }
      guard isFirstRun || delivery.isCurrent else {
        guard !isRetired else { return }
        isRetired = true
        effect?.cancel()
        delivery.hop { start(in: parent, delivery, body) }
        return
      }
      children.cancel(permanently: false)
      children.activate(body)
    }
    parent.add(effect!)
  }
}
