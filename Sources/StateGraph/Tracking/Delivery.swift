import Foundation

/// Where and when a handler runs.
///
/// A handler with ``GraphDelivery/synchronous`` delivery runs synchronously on
/// the writing thread when it was registered without actor isolation; on its
/// actor otherwise, synchronously when the write happens on that actor
/// already, else by an asynchronous hop. A handler with
/// ``GraphDelivery/scheduled`` delivery never runs on the writer's stack: each
/// run is a job sent to its actor, or a task when it has none. A
/// ``DeliveryQueue`` keeps a handler's runs in order, one at a time.
struct Delivery: Sendable {
  let isolation: (any Actor)?
  /// Every run is a job of its own, never inline (``GraphDelivery/scheduled``).
  let isScheduled: Bool

  init(_ isolation: (any Actor)?, scheduled: Bool = false) {
    self.isolation = isolation
    isScheduled = scheduled
  }

  /// True when code may run right here with the handler's isolation: no
  /// isolation, or the current thread is executing on the handler's actor
  /// (the main thread counts for the main actor, and so does the main
  /// actor's executor wherever it runs, as under `swift test` on Linux).
  var isCurrent: Bool {
    guard let isolation else { return true }
    if isolation === MainActor.shared, Thread.isMainThread { return true }
    return isCurrentExecutor(isolation.unownedExecutor, flags: 0)
  }

  /// True when a run asked for here may happen right here: synchronous
  /// delivery, and the current thread has the handler's isolation.
  var runsInline: Bool { !isScheduled && isCurrent }

  /// Runs `body` with the handler's isolation, later: on its actor, or in a
  /// task of its own when it has none. Synchronous delivery without
  /// isolation never hops: it runs `body` here.
  func hop(_ body: @escaping () -> Void) {
    // Not Sendable, yet it runs with the handler's isolation only: a
    // DeliveryQueue's drain, one at a time, in order.
    nonisolated(unsafe) let body = body
    guard let isolation else {
      if isScheduled { HandlerTask.start(body) } else { body() }
      return
    }
    if isolation === MainActor.shared {
      Task { @MainActor in body() }
    } else {
      Task { await Self.run(on: isolation, body) }
    }
  }

  private static func run(on actor: isolated any Actor, _ body: () -> Void) { body() }
}

/// Where the scheduled runs of handlers without actor isolation go: tasks
/// that prefer this executor, whose jobs run on Dispatch's global queue.
/// Those runs are synchronous user code that may block (wait for a
/// semaphore, for another thread's write); on the cooperative pool, which
/// has a thread per core, a few such runs would hold back every other task
/// of the process, including the ones that would unblock them. Dispatch adds
/// threads when its workers block. They are tasks all the same: task-local
/// values and priority come along.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class HandlerExecutor: TaskExecutor {
  static let shared = HandlerExecutor()

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    DispatchQueue.global().async { job.runSynchronously(on: executor) }
  }
}

enum HandlerTask {
  /// Runs `body` in a task of its own: on ``HandlerExecutor`` where the
  /// platform has task executors, else on the default one.
  static func start(_ body: @escaping () -> Void) {
    nonisolated(unsafe) let body = body  // runs once, in the task
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
      Task(executorPreference: HandlerExecutor.shared) { body() }
    } else {
      Task { body() }
    }
  }
}

/// Whether the current thread runs on `executor`: the runtime's check behind
/// `Actor.assertIsolated()` and `Task.immediate`, without the trap (flags 0,
/// "must not crash", asks a custom executor through
/// `isIsolatingCurrentContext()` instead of `checkIsolated()`).
///
/// The standard library declares the entry point with a `Builtin.Executor`
/// parameter, which no other module can name, and a second declaration under
/// the same name is refused; so it is looked up once by name. Its two
/// arguments are the two words of the executor reference and the flags, and
/// it returns a `bool`: passed in the same registers by the Swift and the C
/// conventions (x86-64, arm64). A runtime without it (before Swift 6) answers
/// false: deliveries then hop, still in order.
private func isCurrentExecutor(_ executor: UnownedSerialExecutor, flags: UInt64) -> Bool {
  guard let check = isCurrentExecutorEntry else { return false }
  let (identity, implementation) = unsafeBitCast(executor, to: (UInt, UInt).self)
  return check(identity, implementation, flags)
}

private typealias IsCurrentExecutorEntry = @convention(c) (UInt, UInt, UInt64) -> Bool

private let isCurrentExecutorEntry: IsCurrentExecutorEntry? = {
  #if canImport(Darwin)
    let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
  #else
    let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
  #endif
  guard let symbol = dlsym(everywhere, "swift_task_isCurrentExecutorWithFlags") else { return nil }
  return unsafeBitCast(symbol, to: IsCurrentExecutorEntry.self)
}()
