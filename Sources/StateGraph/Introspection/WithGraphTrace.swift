import StateGraphCore

/// Runs `body` with tracing on for this thread and returns what its writes
/// caused: every node marked, recomputed, cut off by equality, and every
/// observer that ran (see ``GraphTrace``).
///
/// ```swift
/// let trace = withGraphTrace {
///   cart.taxRate = 0.10
/// }
/// print(trace)
/// ```
///
/// Tracing sees this thread's work: its writes, the observers that run for
/// them synchronously, and the recomputations its reads cause. Observers
/// that hop to another actor, and other threads, are not in it. Off by
/// default, tracing costs nothing measurable when off.
///
/// Calls do not nest, and cannot start inside a computation or an observer:
/// that stops the program with a message.
@discardableResult
public func withGraphTrace(_ body: () throws -> Void) rethrows -> GraphTrace {
  try Tracing.run(handler: nil, body)
}

/// Like ``withGraphTrace(_:)``, and hands each chain to `onChain` as soon as
/// the call that started it (a write, the end of a batch, a stale read)
/// returns, on this thread.
///
/// ```swift
/// withGraphTrace {
///   cart.items.append(book)
///   cart.taxRate = 0.10
/// } onChain: { chain in
///   logger.debug("\(chain)")
/// }
/// ```
@discardableResult
public func withGraphTrace(
  _ body: () throws -> Void, onChain: (GraphTrace) -> Void
) rethrows -> GraphTrace {
  try withoutActuallyEscaping(onChain) { handler in
    try Tracing.run(handler: handler, body)
  }
}

/// The C side of withGraphTrace: begin, run, end, and the chain trampoline.
enum Tracing {
  /// Lives for one traced call, on its thread; the C handler's `user` pointer.
  private final class ChainHandler {
    let handle: (GraphTrace) -> Void
    init(_ handle: @escaping (GraphTrace) -> Void) { self.handle = handle }
  }

  private static let deliver: sg_trace_handler = { events, count, user in
    guard let user else { return }
    let chain = GraphTrace(UnsafeBufferPointer(start: events, count: count))
    Unmanaged<ChainHandler>.fromOpaque(user).takeUnretainedValue().handle(chain)
  }

  static func run(handler: ((GraphTrace) -> Void)?, _ body: () throws -> Void) rethrows
    -> GraphTrace
  {
    let box = handler.map(ChainHandler.init)
    let user = box.map { Unmanaged.passUnretained($0).toOpaque() }
    let status = sg_trace_begin(box == nil ? nil : deliver, user)
    guard status == 0 else {
      fatalError(
        "StateGraph: withGraphTrace cannot start here: it does not nest, and cannot start "
          + "inside a computation or an observer (\(String(cString: sg_strerror(status))))")
    }
    defer { withExtendedLifetime(box) {} }
    do {
      try body()
    } catch {
      _ = end()
      throw error
    }
    return end()
  }

  private static func end() -> GraphTrace {
    var trace: OpaquePointer?
    let status = sg_trace_end(&trace)
    guard status == 0, let trace else {
      fatalError("StateGraph: withGraphTrace could not end: \(String(cString: sg_strerror(status)))")
    }
    defer { sg_trace_free(trace) }
    var count = 0
    let events = sg_trace_events(trace, &count)
    return GraphTrace(UnsafeBufferPointer(start: events, count: count))
  }
}
