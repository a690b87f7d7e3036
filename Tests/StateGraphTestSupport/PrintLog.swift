import Foundation

/// Collects printed lines, so a test can compare what a sample printed with what its
/// documentation shows. A test target shadows `print` with a function that appends to
/// ``current`` as well as printing.
public final class PrintLog: @unchecked Sendable {
  // @unchecked: `lines` is touched under `lock` only.
  private let lock = NSLock()
  private var lines: [String] = []

  /// An empty log.
  public init() {}

  /// Appends one printed line.
  public func append(_ line: String) { lock.withLock { lines.append(line) } }

  /// Everything appended since the last call.
  public func take() -> [String] {
    lock.withLock {
      defer { lines = [] }
      return lines
    }
  }

  /// The running test's log, inherited by the tasks it starts.
  @TaskLocal public static var current: PrintLog?
}
