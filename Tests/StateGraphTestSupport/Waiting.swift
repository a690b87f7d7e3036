import Dispatch
import Foundation

/// Polls `condition` (which may hop to an actor) until it holds or `timeout` passes:
/// the bounded wait for asynchronous delivery. Returns whether it held.
///
/// ```swift
/// #expect(await eventually { seen.values == [0, 1] })
/// ```
public func eventually(
  timeout: Duration = .seconds(20), isolation: isolated (any Actor)? = #isolation,
  _ condition: () async -> Bool
) async -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now + timeout
  while clock.now < deadline {
    if await condition() { return true }
    try? await Task.sleep(for: .milliseconds(5))
  }
  return await condition()
}

/// ``eventually(timeout:isolation:_:)`` for synchronous tests: blocks the calling thread
/// while it polls.
public func eventuallyBlocking(timeout: Duration = .seconds(20), _ condition: () -> Bool) -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now + timeout
  while clock.now < deadline {
    if condition() { return true }
    usleep(1000)
  }
  return condition()
}

/// Runs `body` on a thread of its own and waits for it, at most `timeout`.
/// Returns false when it did not finish in time (the test then fails rather than hangs).
@discardableResult
public func onAnotherThread(
  timeout: DispatchTimeInterval = .seconds(20), _ body: @escaping @Sendable () -> Void
) -> Bool {
  let done = DispatchSemaphore(value: 0)
  Thread {
    body()
    done.signal()
  }.start()
  return done.wait(timeout: .now() + timeout) == .success
}

/// Starts `body` on a thread of its own; `wait(seconds:)` on the result joins it, bounded.
public func startThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
  let done = DispatchSemaphore(value: 0)
  Thread {
    body()
    done.signal()
  }.start()
  return done
}

extension DispatchSemaphore {
  /// Waits at most `seconds`; false on a timeout.
  public func wait(seconds: Int) -> Bool { wait(timeout: .now() + .seconds(seconds)) == .success }

  /// Like `wait(seconds:)`, suspending instead of blocking: the wait happens on a thread
  /// of its own, so the task's thread stays free for scheduled handler runs.
  public func waited(seconds: Int) async -> Bool {
    await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: self.wait(seconds: seconds)) }.start()
    }
  }
}
