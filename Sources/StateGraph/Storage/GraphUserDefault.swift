import Foundation

/// A property whose value lives in a `UserDefaults` key and in a ``Stored`` node, so
/// computations and observers that read it see every change of the key.
///
/// ```swift
/// final class Settings {
///   @GraphUserDefault("theme") var theme: String = "light"
///   @GraphUserDefault("fontSize", suiteName: "group.com.example") var fontSize: Double = 14
///   @GraphUserDefault("lastOpened", store: testDefaults) var lastOpened: Date? = nil
/// }
///
/// let settings = Settings()
/// settings.theme = "dark"         // saved to the key at once
/// let label = Computed { _ in "theme: \(settings.theme)" }  // follows the key
/// ```
///
/// The property starts with what the key holds, or with the declared value when it holds
/// nothing or something the type cannot read. A write saves the value and, before the
/// setter returns, gives the node what the key holds afterwards. A change made to the key
/// elsewhere reaches the node when `UserDefaults.didChangeNotification` is posted for the
/// store (synchronously, on the posting thread) and, on Linux, whose Foundation posts
/// nothing for `set(_:forKey:)`, within a quarter of a second through polling.
///
/// `$theme` is the wrapper itself, a reference: keep it to go on reading and writing the
/// key after the enclosing object is gone. ``onDidSet(_:)`` runs after each change the
/// node takes, from this process's writes and from outside.
///
/// This is swift-state-graph's spelling; ``GraphStored(backed:)`` with
/// `.userDefaults(key:)` is the older one, still supported, which also follows writes from
/// other processes on Linux. The value type conforms to ``UserDefaultsStorable``.
///
/// Thread safety: any thread may read and write. Saving and reading back the key is
/// serialised across all instances, so a write and a refresh after a notification cannot
/// interleave; the node takes values in the order in which they were read from the key,
/// and no lock is held while it does (observers and `onDidSet` may write again).
@propertyWrapper
public final class GraphUserDefault<Value: UserDefaultsStorable>: @unchecked Sendable {
  /// The node that holds the value; its reads are tracked like any node's.
  private let node: Stored<Value>
  private let store: UncheckedUserDefaults
  private let key: String
  private let defaultValue: Value
  /// Numbers the values read from the key, under `Self.access`. Values reach the node in
  /// this order: an older one arriving after a newer one is dropped.
  private let readSequence = Locked<UInt64>(0)
  /// The number of the value the node holds; read and written only inside `isCurrent`,
  /// which runs under the node's value lock.
  nonisolated(unsafe) private var publishedSequence: UInt64 = 0
  private let watching = Locked<Watching?>(nil)
  /// Saves of this property that have not published yet, and whether a refresh found one:
  /// a refresh then leaves the value to the saver, so `onDidSet` runs on the writing
  /// thread before the setter returns; the saver refreshes once it published, so a change
  /// made from outside meanwhile is not lost. Changed under `Self.access`, except for the
  /// saver's count down after publishing.
  private let saves = Locked((unpublished: 0, refreshSkipped: false))

  /// What keeps the key observed; ended in `deinit`.
  private struct Watching: @unchecked Sendable {
    let notificationObserver: any NSObjectProtocol
    let poll: StorageWatch
  }

  /// UserDefaults is thread-safe; Linux's Foundation does not say so in its type.
  private struct UncheckedUserDefaults: @unchecked Sendable {
    let defaults: UserDefaults
  }

  /// Serialises every save-and-read-back and every refresh, of all instances, so a value
  /// read from a key is numbered in the order the key took it. Recursive: a custom
  /// `UserDefaultsStorable` may read another wrapped property. No node is written and no
  /// observer runs under it.
  private static var access: RecursiveLock { userDefaultsAccess }

  /// Creates a property kept in `key` of `store`.
  /// - Parameters:
  ///   - wrappedValue: the declared value, read while the key holds nothing usable.
  ///   - key: the `UserDefaults` key.
  ///   - store: the defaults to keep it in; `UserDefaults.standard` unless given.
  public init(wrappedValue: Value, _ key: String, store: UserDefaults = .standard) {
    self.key = key
    self.defaultValue = wrappedValue
    self.store = UncheckedUserDefaults(defaults: store)
    let initial = Self.access.withLock {
      Value._getValue(from: store, forKey: key, defaultValue: wrappedValue)
    }
    self.node = Stored(name: key, wrappedValue: initial)
    startWatching()
    // The key may have changed between the read above and the observer's installation.
    refresh()
  }

  /// Creates a property kept in `key` of the suite named `suiteName`.
  ///
  /// Stops the program when the suite cannot be opened (`UserDefaults(suiteName:)` returns
  /// nil, for example for the app's own bundle identifier), rather than quietly using the
  /// standard defaults.
  /// - Parameters:
  ///   - wrappedValue: the declared value, read while the key holds nothing usable.
  ///   - key: the `UserDefaults` key.
  ///   - suiteName: the suite, as for `UserDefaults(suiteName:)`.
  public convenience init(wrappedValue: Value, _ key: String, suiteName: String) {
    guard let store = UserDefaults(suiteName: suiteName) else {
      preconditionFailure("GraphUserDefault: cannot open the UserDefaults suite '\(suiteName)'")
    }
    self.init(wrappedValue: wrappedValue, key, store: store)
  }

  deinit {
    if let watching = watching.withLock({ $0 }) {
      NotificationCenter.default.removeObserver(watching.notificationObserver)
      watching.poll.cancel()
    }
  }

  /// The value. Reading it inside a computation records a dependency on the key's node;
  /// setting it saves the value, and the node takes what the key then holds before the
  /// setter returns.
  public var wrappedValue: Value {
    get { node.wrappedValue }
    set {
      let (value, sequence) = Self.access.withLock {
        saves.withLock { $0.unpublished += 1 }
        let thread = ThreadState.current
        thread.isSavingUserDefault = true
        defer { thread.isSavingUserDefault = false }
        UserDefaultsBacking.withPreferences {
          newValue._setValue(to: store.defaults, forKey: key)
          #if !canImport(Darwin)
            // swift-corelibs-foundation keeps changes in memory until synchronize():
            // write them through, as the `backed:` spelling does, so that they survive
            // a crash.
            store.defaults.synchronize()
          #endif
        }
        return readBack()
      }
      publish(value, sequence: sequence)
      let refreshAgain = saves.withLock { saves in
        saves.unpublished -= 1
        guard saves.unpublished == 0, saves.refreshSkipped else { return false }
        saves.refreshSkipped = false
        return true
      }
      if refreshAgain { refresh() }
    }
  }

  /// The wrapper itself: `$name` in the enclosing type. Holding it keeps the key observed.
  public var projectedValue: GraphUserDefault<Value> { self }

  /// Sets the closure that runs after the node takes a new value, with the old and the new
  /// one: after this process's writes and after changes found in the key. A write that
  /// leaves the value as it was does not call it. One closure per property; a second call
  /// replaces the first. It runs on the writing (or notifying) thread, with no lock held.
  public func onDidSet(_ handler: @escaping (_ oldValue: Value, _ newValue: Value) -> Void) {
    node.onDidSet(handler)
  }

  /// Reads the key again and gives the node what it holds.
  private func refresh() {
    let read: (Value, UInt64)? = Self.access.withLock {
      let isSaving = saves.withLock { saves in
        if saves.unpublished > 0 { saves.refreshSkipped = true }
        return saves.unpublished > 0
      }
      return isSaving ? nil : readBack()
    }
    guard let (value, sequence) = read else { return }
    publish(value, sequence: sequence)
  }

  /// Under `access`: what the key holds, numbered.
  private func readBack() -> (Value, UInt64) {
    let value = UserDefaultsBacking.withPreferences {
      Value._getValue(from: store.defaults, forKey: key, defaultValue: defaultValue)
    }
    let sequence = readSequence.withLock { sequence in
      sequence += 1
      return sequence
    }
    return (value, sequence)
  }

  private func publish(_ value: Value, sequence: UInt64) {
    node.publishCallingDidSet(value) {
      guard sequence > self.publishedSequence else { return false }
      self.publishedSequence = sequence
      return true
    }
  }

  private func startWatching() {
    // Weak: the observers must not keep the property alive; a refresh under way holds it
    // until it ends.
    let observer = NotificationCenter.default.addObserver(
      forName: UserDefaults.didChangeNotification, object: store.defaults, queue: nil
    ) { [weak self] _ in
      // Posted by a save on this thread, under `access`: refreshing here would run
      // observers under the lock, and a writer on another thread would wait for them.
      // The saver publishes its own value; other properties on the key refresh later.
      guard let self else { return }
      if ThreadState.existing?.isSavingUserDefault == true {
        DispatchQueue.global().async { self.refresh() }
      } else {
        self.refresh()
      }
    }
    // Linux's Foundation posts no notification for writes; the shared watcher polls.
    let poll = UserDefaultsWatcher.shared.add(suite: nil) { [weak self] in
      self?.refresh()
    }
    watching.withLock { $0 = Watching(notificationObserver: observer, poll: poll) }
  }
}

/// See `GraphUserDefault.access`.
private let userDefaultsAccess = RecursiveLock()
