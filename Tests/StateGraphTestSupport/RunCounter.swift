import Foundation

/// Counts closure runs by name, from any thread; tests assert exact numbers.
///
/// ```swift
/// let runs = RunCounter()
/// let total = Computed { _ in runs.count("total", store.count) }
/// #expect(runs["total"] == 1)
/// ```
public final class RunCounter: @unchecked Sendable {
  // @unchecked: `counts` is touched under `lock` only.
  private let lock = NSLock()
  private var counts: [String: Int] = [:]

  public init() {}

  /// Counts one run of `name` and returns `result`.
  public func count<T>(_ name: String, _ result: T) -> T {
    lock.withLock { counts[name, default: 0] += 1 }
    return result
  }

  /// Runs of `name` so far.
  public subscript(name: String) -> Int { lock.withLock { counts[name, default: 0] } }
}
