import Foundation
import StateGraph

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
