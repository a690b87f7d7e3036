import Foundation

/// Counts closure runs by name, from any thread; tests assert exact numbers.
///
/// ```swift
/// let runs = RunCounter()
/// let total = Computed { _ in runs.count("total", store.count) }
/// #expect(runs["total"] == 1)
/// ```
final class RunCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var counts: [String: Int] = [:]

  /// Counts one run of `name` and returns `result`.
  func count<T>(_ name: String, _ result: T) -> T {
    lock.withLock { counts[name, default: 0] += 1 }
    return result
  }

  /// Runs of `name` so far.
  subscript(name: String) -> Int { lock.withLock { counts[name, default: 0] } }
}

/// Records values handed to an observer, in order, from any thread.
final class Recorder<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [Value] = []

  var values: [Value] { lock.withLock { storage } }

  func append(_ value: Value) { lock.withLock { storage.append(value) } }
}

/// Holds weak references to check that objects are freed.
final class LifetimeTracker {
  private var references: [() -> AnyObject?] = []

  @discardableResult
  func track<T: AnyObject>(_ object: T) -> T {
    references.append { [weak object] in object }
    return object
  }

  var tracked: Int { references.count }
  var alive: Int { references.filter { $0() != nil }.count }
}
