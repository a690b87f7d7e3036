import Foundation
import StateGraph

/// Runs `body` on a thread of its own and waits for it, at most `timeout`.
/// Returns false when it did not finish in time (the test then fails rather than hangs).
@discardableResult
func onAnotherThread(
  timeout: DispatchTimeInterval = .seconds(20), _ body: @escaping @Sendable () -> Void
) -> Bool {
  let done = DispatchSemaphore(value: 0)
  Thread {
    body()
    done.signal()
  }.start()
  return done.wait(timeout: .now() + timeout) == .success
}

/// Starts `body` on a thread of its own; `wait()` on the result joins it, bounded.
func startThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
  let done = DispatchSemaphore(value: 0)
  Thread {
    body()
    done.signal()
  }.start()
  return done
}

extension DispatchSemaphore {
  /// Waits at most `seconds`; false on a timeout.
  func wait(seconds: Int) -> Bool { wait(timeout: .now() + .seconds(seconds)) == .success }

  /// Like `wait(seconds:)`, suspending instead of blocking: the wait happens on a thread
  /// of its own, so the task's thread stays free for scheduled handler runs.
  func waited(seconds: Int) async -> Bool {
    await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: self.wait(seconds: seconds)) }.start()
    }
  }
}

/// A backing kept in memory whose next save, once armed, stops until released: it opens,
/// every time, the window between a rollback's restore and the rest of its work.
struct PausingBacking: StorageBacking {
  final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: PropertyListValue?
    private var armed = false
    /// Signalled when an armed save has stopped.
    let paused = DispatchSemaphore(value: 0)
    /// Signal to let the stopped save go on.
    let resume = DispatchSemaphore(value: 0)

    var value: PropertyListValue? { lock.withLock { stored } }

    func arm() { lock.withLock { armed = true } }

    fileprivate func save(_ value: PropertyListValue?) {
      let mustPause = lock.withLock {
        defer { armed = false }
        return armed
      }
      if mustPause {
        paused.signal()
        _ = resume.wait(seconds: 20)
      }
      lock.withLock { stored = value }
    }
  }

  let gate = Gate()

  var description: String { "pausing backing" }

  func load() throws -> PropertyListValue? { gate.value }

  func save(_ value: PropertyListValue?) throws { gate.save(value) }

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.gate === rhs.gate }

  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(gate)) }
}
