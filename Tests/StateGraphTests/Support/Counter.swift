import Foundation
import StateGraph

/// Counts closure runs from any thread; tests assert exact numbers.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0

  var value: Int { lock.withLock { count } }

  func tick() { lock.withLock { count += 1 } }

  /// Returns `result` after counting one run: `Computed { _ in counter.run(a + b) }`.
  func run<T>(_ result: T) -> T {
    tick()
    return result
  }
}

/// Records values delivered to a handler, in order, from any thread.
final class Recorder<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [Value] = []

  var values: [Value] { lock.withLock { storage } }
  var count: Int { lock.withLock { storage.count } }

  func append(_ value: Value) { lock.withLock { storage.append(value) } }
}

/// Checks that objects are freed: hold weak references, then assert.
final class LifetimeTracker: @unchecked Sendable {
  private var references: [() -> AnyObject?] = []

  func track<T: AnyObject>(_ object: T) -> T {
    references.append { [weak object] in object }
    return object
  }

  var aliveCount: Int { references.filter { $0() != nil }.count }
}

/// Polls `condition` until it holds or `timeout` passes (asynchronous delivery).
func eventually(
  timeout: Duration = .seconds(5), _ condition: @Sendable () -> Bool
) async -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now + timeout
  while clock.now < deadline {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(5))
  }
  return condition()
}
