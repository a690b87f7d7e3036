import Foundation

/// Collects what the samples `print`, so tests can compare it with the
/// output upstream's documentation shows.
final class PrintLog: @unchecked Sendable {
  private let lock = NSLock()
  private var lines: [String] = []

  func print(_ line: String) { lock.withLock { lines.append(line) } }

  /// Everything printed since the last call.
  func take() -> [String] {
    lock.withLock {
      defer { lines = [] }
      return lines
    }
  }
}

final class RunCount: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0
  var count: Int { lock.withLock { value } }
  func tick() { lock.withLock { value += 1 } }
}
