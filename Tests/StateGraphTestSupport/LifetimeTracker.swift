/// Checks that objects are freed: track them (weakly), drop the strong references,
/// then assert that none is alive.
///
/// ```swift
/// let tracker = LifetimeTracker()
/// do { _ = tracker.track(Stored(wrappedValue: 0)) }
/// #expect(tracker.aliveCount == 0)
/// ```
///
/// Not thread-safe: track and count from one task.
public final class LifetimeTracker: @unchecked Sendable {
  // @unchecked: used from one task at a time, as its tests do.
  private var references: [() -> AnyObject?] = []

  /// A tracker that tracks nothing yet.
  public init() {}

  /// Tracks `object` weakly and returns it.
  @discardableResult
  public func track<T: AnyObject>(_ object: T) -> T {
    references.append { [weak object] in object }
    return object
  }

  /// How many objects were tracked.
  public var trackedCount: Int { references.count }

  /// How many tracked objects are still alive.
  public var aliveCount: Int { references.filter { $0() != nil }.count }
}
