import StateGraphCore

/// An effect node of the C core with a Swift closure: runs once now, then
/// after every outermost write or batch that changed something it read in
/// its last run. Reads inside `body` are tracked. `@unchecked Sendable`:
/// `isCancelled` is guarded by `lock`; the node is the core's, safe from
/// any thread.
final class GraphEffect: TrackingMember, @unchecked Sendable {
  private let node: OpaquePointer
  private let lock = ValueLock()
  private var isCancelled = false

  /// What the C node's context points at (retained by the C node, released
  /// by its destroy callback), so a run in flight never meets freed memory.
  private final class Body {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
  }

  init(name: String, file: StaticString = #fileID, line: UInt = #line, _ body: @escaping () -> Void) {
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var created: OpaquePointer?
    GraphCore.info(name: name, file: file, line: line) { info in
      let status = sg_effect_new(
        GraphCore.graph, info, GraphEffect.runThunk, context, GraphEffect.releaseThunk, &created)
      if status == SG_ECYCLE.rawValue || status == SG_ECALLBACK.rawValue,
        created == nil
      {
        fatalError("StateGraph: creating effect '\(name)' failed")
      }
      GraphCore.wrote(status)  // its first run set off a loop of handlers
    }
    node = created!
  }

  deinit { cancel() }

  /// Stops the effect; safe from inside its own run and from any thread.
  func cancel() {
    lock.lock()  // the flag only: destroying the node releases the body outside
    let wasCancelled = isCancelled
    isCancelled = true
    lock.unlock()
    if !wasCancelled { sg_node_destroy(node) }
  }

  /// Whether no change in progress has reached the effect without its run
  /// (or the core's finding that it need not run) having happened yet: the
  /// node is CLEAN in the core, or gone. Never blocks on a writer: the core
  /// answers under its graph lock.
  var isSettled: Bool {
    lock.lock()  // keeps `cancel` from destroying the node during the look; no user code runs
    defer { lock.unlock() }
    if isCancelled { return true }
    var description = sg_node_description()
    guard sg_node_describe(node, &description) == 0 else { return true }
    return description.state == SG_CLEAN
  }

  /// A run of the effect itself is no handler run: the handlers it starts
  /// wait in their own ``DeliveryQueue``.
  func cancel(_ inProgress: inout [any TrackingMember]) { cancel() }

  // Borrows the body: the core releases a context only once no thread uses
  // its node any more.
  private static let runThunk: sg_callback = { _, context in
    Unmanaged<Body>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.run() }
    return 0
  }

  private static let releaseThunk: sg_destroy = { context in ContextRelease.release(context!) }
}
