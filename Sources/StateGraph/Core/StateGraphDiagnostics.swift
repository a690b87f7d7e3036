import Foundation
import StateGraphCore

/// Process-wide switches for what StateGraph reports about questionable uses. They
/// change what is reported, never what the graph does, except where a setting says
/// so. Thread-safe; set them early (at launch, or at the start of a test).
///
/// ```swift
/// StateGraphDiagnostics.isSelfInvalidationWarningEnabled = false
/// StateGraphDiagnostics.writeFromComputeRule = .warn
/// ```
public enum StateGraphDiagnostics {
  /// What happens when a compute rule writes a node that it reads.
  public enum Reaction: Sendable, Hashable {
    /// Stop the program with the dependency-cycle message, which names the rule and the
    /// node: the default.
    case stop
    /// Print the same message as a warning and go on. The value is stored, but nothing
    /// that depends on the node hears of this write (the rule would otherwise run again
    /// for its own write without end).
    case warn
  }

  private struct Settings {
    var isSelfInvalidationWarningEnabled = true
    var writeFromComputeRule = Reaction.stop
    var warnedHandlers: Set<UInt64> = []
  }

  private static let lock = NSLock()
  nonisolated(unsafe) private static var settings = Settings()  // guarded by `lock`

  /// Whether a debug build warns when a tracking group, map or `onChange` handler
  /// writes a node that it reads. Such a write reaches every other observer, but not
  /// the handler that made it (that would run it again for its own write); the warning
  /// says so once per registration. True by default; release builds never warn.
  public static var isSelfInvalidationWarningEnabled: Bool {
    get { lock.withLock { settings.isSelfInvalidationWarningEnabled } }
    set { lock.withLock { settings.isSelfInvalidationWarningEnabled = newValue } }
  }

  /// What a write from inside a compute rule to a node that the rule reads does:
  /// ``Reaction/stop`` (the default) or ``Reaction/warn``.
  public static var writeFromComputeRule: Reaction {
    get { lock.withLock { settings.writeFromComputeRule } }
    set { lock.withLock { settings.writeFromComputeRule = newValue } }
  }

  /// Receives every warning's text instead of standard error, where a test sets it.
  @TaskLocal static var warningObserver: (@Sendable (String) -> Void)?

  static func warn(_ message: String) {
    if let observer = warningObserver { return observer(message) }
    FileHandle.standardError.write(Data(("StateGraph: warning: " + message + "\n").utf8))
  }

  /// `handler` (an effect node's id) wrote a node it reads: warns the first time only.
  static func selfInvalidation(by handler: UInt64, _ message: () -> String) {
    let isFirst = lock.withLock {
      settings.isSelfInvalidationWarningEnabled && settings.warnedHandlers.insert(handler).inserted
    }
    if isFirst { warn(message()) }
  }
}

extension GraphCore {
  /// Tells the core that `node` changed (see `sg_changed`), handling what it answers:
  /// a compute rule writing a node it reads stops the program or, as
  /// ``StateGraphDiagnostics/writeFromComputeRule`` says, warns; a handler writing a
  /// node it reads is reported in debug builds
  /// (``StateGraphDiagnostics/isSelfInvalidationWarningEnabled``).
  @inlinable @inline(__always)
  static func changed(_ node: OpaquePointer) {
    handleWrite(sg_changed_unchecked(node), of: node)
  }

  /// What ``changed(_:)`` does with the core's answer, also for a write in two steps
  /// (`sg_write_begin_unchecked`), once the node's lock is let go: a warning is user code.
  @inlinable @inline(__always)
  static func handleWrite(_ status: Int32, of node: OpaquePointer) {
    if status != 0 { refusedChange(status) }
    #if DEBUG
      if sg_current() != nil { checkSelfInvalidation(node) }
    #endif
  }

  @usableFromInline
  static func refusedChange(_ status: Int32) {
    guard status == SG_ECYCLE.rawValue else { return }
    if isComputing, StateGraphDiagnostics.writeFromComputeRule == .warn {
      return StateGraphDiagnostics.warn(
        "a compute rule wrote a node it reads; nothing that depends on it hears of this write: "
          + String(cString: sg_last_cycle()))
    }
    cycle()
  }

  /// Inside an effect's run (a handler's): did it write a node it read?
  @usableFromInline
  static func checkSelfInvalidation(_ node: OpaquePointer) {
    guard let running = sg_current() else { return }
    var handler = sg_node_description()
    guard sg_node_describe(running, &handler) == 0, handler.kind == SG_EFFECT else { return }
    var count = 0
    guard sg_node_sources(running, nil, 0, &count) == 0, count > 0 else { return }
    var sources = [OpaquePointer?](repeating: nil, count: count)
    guard sg_node_sources(running, &sources, count, &count) == 0,
      sources.prefix(count).contains(where: { $0 == node })
    else { return }
    StateGraphDiagnostics.selfInvalidation(by: handler.id) {
      var written = sg_node_description()
      let name = sg_node_describe(node, &written) == 0 ? String(cString: written.name) : ""
      let place = handler.file.map { " (\(String(cString: $0)):\(handler.line))" } ?? ""
      return "\(String(cString: handler.name))\(place) wrote \(name.isEmpty ? "a node" : "'\(name)'"), "
        + "which it reads: every other observer hears of it, this one does not"
    }
  }
}
