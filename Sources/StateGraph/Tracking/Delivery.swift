import Foundation

/// Where a handler runs: synchronously on the writing thread when it was
/// registered without actor isolation; on its actor otherwise (synchronously
/// when that actor is the main actor and the write happens on the main
/// thread, else by an asynchronous hop, in order).
struct Delivery: @unchecked Sendable {
  let isolation: (any Actor)?

  init(_ isolation: (any Actor)?) { self.isolation = isolation }

  /// True when code may run right here with the handler's isolation.
  var isCurrent: Bool {
    guard let isolation else { return true }
    return isolation === MainActor.shared && Thread.isMainThread
  }

  func callAsFunction(_ body: @escaping () -> Void) {
    if isCurrent {
      body()
    } else {
      hop(body)
    }
  }

  /// Runs `body` on the handler's actor, later.
  func hop(_ body: @escaping () -> Void) {
    nonisolated(unsafe) let body = body
    guard let isolation else { return body() }
    if isolation === MainActor.shared {
      Task { @MainActor in body() }
    } else {
      Task { await Self.run(on: isolation, body) }
    }
  }

  private static func run(on actor: isolated any Actor, _ body: () -> Void) { body() }
}
