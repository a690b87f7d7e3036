import StateGraphCore

extension GraphNode {
  /// Calls `handler` with the current value now, then with each new value.
  /// Must be called inside ``withGraphTracking(_:)``, whose subscription
  /// keeps the handler (and this node) alive.
  ///
  /// ```swift
  /// subscription = withGraphTracking {
  ///   model.$count.onChange { count in print("count: \(count)") }
  /// }
  /// ```
  ///
  /// Runs after the write (or the outermost batch) that changed the value,
  /// with each value in the order of the changes: on the actor it was
  /// registered from (right away when the write happens there, else after a
  /// hop that carries the value), or synchronously on the writing thread when
  /// registered outside any actor. The handler takes the isolation of the
  /// code that registers it: on the main actor or in an actor it may touch
  /// that actor's state; outside any actor it is `@Sendable`, since writers
  /// on any thread run it, so it cannot mutate a captured `var` or capture a
  /// value that is not `Sendable` (see <doc:ObservingChanges>). `isolation`
  /// is the registering code's; the handler's own decides where it runs.
  ///
  /// Unlike a tracking group, it is not merged into one later run: it hands
  /// over values, not a chance to read the latest state, and a run scheduled
  /// for later would only see the last of several quick changes. So the
  /// writer delivers each value itself (see <doc:ThreadsAndObserverOrder>).
  /// None starts once the subscription is cancelled.
  ///
  /// `file` and `line` name the handler when handlers keep re-running each
  /// other without end, which stops the program.
  @inlinable
  public func onChange(
    isolation: isolated (any Actor)? = #isolation, file: StaticString = #fileID,
    line: UInt = #line,
    @_inheritActorContext(always) _ handler: @escaping @isolated(any) @Sendable (Value) -> Void
  ) {
    // Made here, so that the caller's module compiles the run for the node's type.
    registerOnChange(file, line, handler) { deliveries in
      let value = self.wrappedValue
      sg_untracked_begin()  // the delivery's reads are not the handler's
      defer { sg_untracked_end() }
      deliveries.submit(value)
    }
  }

  /// Like `onChange(isolation:file:line:_:)`, delivering only the values `filter`
  /// passes (see ``GraphFilter``).
  ///
  /// ```swift
  /// subscription = withGraphTracking {
  ///   model.$temperature.onChange(filter: ComparisonFilter { old, new in abs(new - old) >= 5 }) {
  ///     print("now \($0)°")
  ///   }
  /// }
  /// ```
  ///
  /// The filter runs where the change is made, on the writing thread, once per
  /// change and one change at a time; what it passes is delivered as
  /// `onChange(isolation:file:line:_:)` says.
  public func onChange(
    filter: some GraphFilter<Value>, isolation: isolated (any Actor)? = #isolation,
    file: StaticString = #fileID, line: UInt = #line,
    @_inheritActorContext(always) _ handler: @escaping @isolated(any) @Sendable (Value) -> Void
  ) {
    let state = FilterState(filter)
    registerOnChange(file, line, handler) { deliveries in
      let value = self.wrappedValue
      sg_untracked_begin()  // the filter's and the delivery's reads are not the handler's
      defer { sg_untracked_end() }
      guard let passed = state.send(value) else { return }
      deliveries.submit(passed)
    }
  }

  /// Registers an effect that reads the node and, when `pass` returns true,
  /// hands the value (which `pass` may replace) to `handler` through a
  /// ``DeliveryQueue``. `pass` runs in the effect's runs, which never overlap,
  /// untracked. It answers with a flag rather than a `Value?`: this code runs
  /// unspecialised, and an optional would look up its metadata on every run.
  @usableFromInline
  func registerOnChange(
    _ file: StaticString, _ line: UInt,
    _ handler: @escaping @isolated(any) @Sendable (Value) -> Void,
    run: @escaping (DeliveryQueue<Value>) -> Void
  ) {
    let scope = TrackingScope.required("onChange")
    let name = "onChange(\(graphName))"
    // The queue calls the handler with its isolation only, one run at a
    // time, in order.
    let deliveries = DeliveryQueue<Value>(
      Delivery(handler.isolation), label: "\(name) (\(file):\(line))",
      run: IsolatedHandler.plain(handler))
    scope.add(deliveries)
    scope.add(GraphEffect(name: name, file: file, line: line) { run(deliveries) })
  }
}

extension GraphNode where Value: Equatable {
  /// Calls `handler` with the current value now, then with each value
  /// different from the last one delivered, as a ``DistinctFilter`` passes
  /// them; it runs as the `onChange(isolation:file:line:_:)` of any value
  /// does. ``GraphNode/onChange(filter:isolation:file:line:_:)`` takes
  /// another filter.
  @inlinable
  public func onChange(
    isolation: isolated (any Actor)? = #isolation, file: StaticString = #fileID,
    line: UInt = #line,
    @_inheritActorContext(always) _ handler: @escaping @isolated(any) @Sendable (Value) -> Void
  ) {
    let last = LastValue<Value>()
    registerOnChange(file, line, handler) { deliveries in
      let value = self.wrappedValue
      sg_untracked_begin()  // the comparison's and the delivery's reads are not the handler's
      defer { sg_untracked_end() }
      if last.update(value) { deliveries.submit(value) }
    }
  }
}

/// A filter of one `onChange` registration. Its runs never overlap (the core
/// runs a node on one thread at a time, and the filter runs in the node's
/// effect), so no lock is needed.
final class FilterState<Filter: GraphFilter>: @unchecked Sendable {
  private var filter: Filter

  init(_ filter: Filter) { self.filter = filter }

  func send(_ value: Filter.Value) -> Filter.Value? { filter.send(value: value) }
}

/// The last value an effect delivered: ``DistinctFilter`` for the default
/// `onChange(_:)` of `Equatable` values. Runs of one effect never overlap (the
/// core runs a node on one thread at a time), so no lock is needed, nor
/// exclusivity checks.
@usableFromInline
final class LastValue<Value: Equatable>: @unchecked Sendable {
  // A pointer and a flag rather than `Value?`: the deinit runs unspecialised, and
  // would look up `Optional<Value>`'s metadata (as the compute box would; see
  // Nodes/ComputeBox.swift).
  @usableFromInline let storage = UnsafeMutablePointer<Value>.allocate(capacity: 1)
  @usableFromInline @exclusivity(unchecked) var hasValue = false

  @inlinable init() {}

  deinit {
    if hasValue { storage.deinitialize(count: 1) }
    storage.deallocate()
  }

  /// Records `next` and returns true when it differs from the last value
  /// recorded (or is the first). Inlinable: the caller's module compares with the
  /// value type's own `==`.
  @inlinable
  func update(_ next: Value) -> Bool {
    guard hasValue else {
      storage.initialize(to: next)
      hasValue = true
      return true
    }
    if storage.pointee == next { return false }
    storage.pointee = next
    return true
  }
}

extension TrackingScope {
  static func required(_ caller: String) -> TrackingScope {
    guard let scope = current else {
      preconditionFailure("StateGraph: \(caller) must be called inside withGraphTracking { }")
    }
    return scope
  }
}
