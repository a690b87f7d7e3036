/// Handlers take the isolation of the code that registers them: a closure
/// written on the main actor or in an actor may touch that actor's state,
/// and one written outside any actor is `@Sendable`, since it runs on
/// whichever thread writes (or in a task of its own). Their parameters are
/// `@_inheritActorContext(always) @isolated(any) @Sendable`: `@isolated(any)`
/// keeps the isolation the closure was formed with, which
/// `@_inheritActorContext(always)` makes the registering code's one.
///
/// The delivery machinery calls a handler synchronously, once it runs with
/// the handler's isolation (`Delivery.isCurrent`, or a hop there), which
/// the type system cannot see; so it receives the handler as a plain
/// function, made here, with the isolation beside it.
enum IsolatedHandler {
  /// `handler` as a plain function: call it only with `handler.isolation`.
  static func plain<Argument, Result>(
    _ handler: @escaping @isolated(any) @Sendable (Argument) -> Result
  ) -> @Sendable (Argument) -> Result {
    // Dropping `@isolated(any)` is a plain function conversion (the same two
    // words; the isolation lives in the closure's context). `as` would do it,
    // with a warning that a synchronous call needs the isolation: the caller
    // of the result guarantees it.
    unsafeBitCast(handler, to: (@Sendable (Argument) -> Result).self)
  }

  /// `handler` as a plain function: call it only with `handler.isolation`.
  static func plain<Result>(
    _ handler: @escaping @isolated(any) @Sendable () -> Result
  ) -> @Sendable () -> Result {
    unsafeBitCast(handler, to: (@Sendable () -> Result).self)
  }

  /// The isolation two handlers that run together (a map's projection and
  /// its `onChange`) both accept: one without isolation runs anywhere.
  static func shared(
    _ first: (any Actor)?, _ second: (any Actor)?, _ caller: String
  ) -> (any Actor)? {
    guard let first else { return second }
    guard let second, first !== second else { return first }
    preconditionFailure("StateGraph: \(caller)'s closures must have the same actor isolation")
  }
}
