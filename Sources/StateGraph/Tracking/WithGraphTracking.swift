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
/// cancels everything the previous run registered.
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
  let scope = TrackingScope.required("withGraphTrackingGroup")
  let group = TrackingGroup(Delivery(isolation), body)
  scope.add(group)
  group.start()
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
  nonisolated(unsafe) let onChange = onChange  // runs with `isolation` only (DeliveryQueue)
  let deliveries = DeliveryQueue<Value>(Delivery(isolation)) { onChange($0) }
  let last = LastValue<Value>()
  scope.add(deliveries)
  scope.add(
    GraphEffect(name: "withGraphTrackingMap") {
      let value = projection()
      guard last.update(value, .distinct) else { return }
      sg_untracked_begin()
      defer { sg_untracked_end() }
      deliveries.submit(value)
    })
}
