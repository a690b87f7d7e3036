import Foundation

/// Tells every watched UserDefaults key that it may have changed, from one serial
/// background queue.
///
/// A pass asks each watched slot to reload its key; a slot hands a value to its nodes only
/// when it differs from the last one it knew, so extra passes cost a dictionary lookup per
/// key. On Linux a pass first synchronizes the watched suites, which picks up what other
/// processes saved (cheap when nothing changed: no file is read).
///
/// Passes run on the queue, never on the thread that posted the notification: that thread
/// is inside a `UserDefaults` call, perhaps a node's save, and dependents' observers should
/// not run there. So changes from outside always arrive from this queue, on every platform.
/// Requests made while a pass is pending are coalesced.
// @unchecked: `observer` is set once in `init` and never read again (it only keeps the
// registration); everything else is an immutable `Sendable` value.
final class UserDefaultsWatcher: @unchecked Sendable {
  static let shared = UserDefaultsWatcher()

  /// How often Linux re-reads the watched keys: its Foundation posts nothing on writes.
  /// Apple platforms rely on `UserDefaults.didChangeNotification` alone.
  static let pollInterval: DispatchTimeInterval = .milliseconds(250)

  private struct State {
    var watchers: [UInt64: (defaults: UncheckedDefaults, onChange: @Sendable () -> Void)] = [:]
    var nextID: UInt64 = 0
    var isPassPending = false
    var poll: DispatchSourceTimer?
  }

  private let queue = DispatchQueue(label: "StateGraph.UserDefaultsWatcher")
  private let state = Locked(State())
  private var observer: (any NSObjectProtocol)?

  private init() {
    observer = NotificationCenter.default.addObserver(
      forName: UserDefaults.didChangeNotification, object: nil, queue: nil
    ) { [unowned self] _ in
      requestPass()
    }
  }

  /// Calls `onChange` on every pass until the returned watch ends.
  func add(defaults: UserDefaults, _ onChange: @escaping @Sendable () -> Void) -> StorageWatch {
    let id = state.withLock { state in
      defer { state.nextID += 1 }
      state.watchers[state.nextID] = (UncheckedDefaults(defaults: defaults), onChange)
      #if !canImport(Darwin)
        if state.poll == nil { state.poll = startPolling() }
      #endif
      return state.nextID
    }
    return StorageWatch { [self] in
      let poll: DispatchSourceTimer? = state.withLock { state in
        state.watchers[id] = nil
        guard state.watchers.isEmpty else { return nil }
        defer { state.poll = nil }
        return state.poll
      }
      poll?.cancel()
    }
  }

  /// Runs a pass soon, unless one is already waiting to run.
  func requestPass() {
    let schedule = state.withLock { state in
      defer { state.isPassPending = true }
      return !state.isPassPending
    }
    guard schedule else { return }
    queue.async { [self] in
      state.withLock { $0.isPassPending = false }
      runPass()
    }
  }

  private func runPass() {
    let watchers = state.withLock { Array($0.watchers.values) }
    #if !canImport(Darwin)
      var synchronized = Set<ObjectIdentifier>()
      for watcher in watchers
      where synchronized.insert(ObjectIdentifier(watcher.defaults.defaults)).inserted {
        let defaults = watcher.defaults.defaults
        UserDefaultsBacking.withPreferences { _ = defaults.synchronize() }
      }
    #endif
    for watcher in watchers { watcher.onChange() }
  }

  /// UserDefaults is thread-safe; Linux's Foundation does not say so in its type.
  struct UncheckedDefaults: @unchecked Sendable {
    let defaults: UserDefaults
  }

  private func startPolling() -> DispatchSourceTimer {
    let timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(
      deadline: .now() + Self.pollInterval, repeating: Self.pollInterval, leeway: .milliseconds(50))
    timer.setEventHandler { [unowned self] in runPass() }
    timer.resume()
    return timer
  }
}
