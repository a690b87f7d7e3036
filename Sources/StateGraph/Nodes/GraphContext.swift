import StateGraphCore

/// Passed to every computation. Reads made through it are tracked as usual;
/// ``withoutTracking(_:)`` reads without recording dependencies.
public struct GraphContext: Sendable {
  @usableFromInline init() {}

  /// Runs `body` without recording the nodes it reads as dependencies of the
  /// running computation.
  ///
  /// ```swift
  /// let label = Computed { context in
  ///   let unit = context.withoutTracking { settings.unit.wrappedValue }
  ///   return "\(distance.wrappedValue) \(unit)"
  /// }
  /// ```
  public func withoutTracking<R>(_ body: () throws -> R) rethrows -> R {
    sg_untracked_begin()
    defer { sg_untracked_end() }
    return try body()
  }
}
