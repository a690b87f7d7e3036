import Foundation

/// Counts runs of a closure, from any thread; tests assert exact numbers.
///
/// ```swift
/// let runs = Counter()
/// let total = Computed { _ in runs.run(a.wrappedValue + b.wrappedValue) }
/// #expect(runs.value == 1)
/// ```
public final class Counter: @unchecked Sendable {
  // @unchecked: `count` is touched under `lock` only.
  private let lock = NSLock()
  private var count = 0

  /// A counter at zero.
  public init() {}

  /// The runs counted so far.
  public var value: Int { lock.withLock { count } }

  /// Counts one run.
  public func tick() { lock.withLock { count += 1 } }

  /// Counts one run and returns `result`: `Computed { _ in counter.run(a + b) }`.
  public func run<T>(_ result: T) -> T {
    tick()
    return result
  }
}
