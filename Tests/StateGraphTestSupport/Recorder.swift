import Foundation

/// Records the values handed to a handler, in order, from any thread.
///
/// ```swift
/// let seen = Recorder<Int>()
/// let subscription = withGraphTracking { count.onChange { seen.append($0) } }
/// #expect(seen.values == [0])
/// ```
public final class Recorder<Value>: @unchecked Sendable {
  // @unchecked: `storage` is touched under `lock` only.
  private let lock = NSLock()
  private var storage: [Value] = []

  /// An empty record.
  public init() {}

  /// Every value recorded, oldest first.
  public var values: [Value] { lock.withLock { storage } }

  /// How many values were recorded.
  public var count: Int { lock.withLock { storage.count } }

  /// Records `value`.
  public func append(_ value: Value) { lock.withLock { storage.append(value) } }
}
