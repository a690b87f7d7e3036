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

  /// `owner`: the effect this one belongs to although it is not created in
  /// its run (`sg_effect_new_owned`; held by the caller): its owners come
  /// first, for this effect's first run too, which is then left to another
  /// thread when an owner runs there.
  init(
    name: String, file: StaticString = #fileID, line: UInt = #line, owner: OpaquePointer? = nil,
    _ body: @escaping () -> Void
  ) {
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var created: OpaquePointer?
    GraphCore.info(name: name, file: file, line: line) { info in
      let status = sg_effect_new_owned(
        GraphCore.graph, info, GraphEffect.runThunk, context, GraphEffect.releaseThunk, owner,
        &created)
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
