import Foundation

/// A place where one persisted value lives: a UserDefaults key, a file, a keychain item.
///
/// A backing moves property lists; converting them to and from the property's type,
/// following other nodes on the same place, and reporting bad data are done for it.
/// Backings that compare equal are the same place: nodes on equal backings share one
/// value, and a write through one updates the others at once.
///
/// ```swift
/// struct FileBacking: StorageBacking {
///   let url: URL
///   var description: String { "file \(url.path)" }
///
///   func load() throws -> PropertyListValue? {
///     guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
///     let object = try PropertyListSerialization.propertyList(from: data, format: nil)
///     return PropertyListValue(propertyListObject: object)
///   }
///
///   func save(_ value: PropertyListValue?) throws {
///     guard let value else {
///       if FileManager.default.fileExists(atPath: url.path) {
///         try FileManager.default.removeItem(at: url)
///       }
///       return
///     }
///     let data = try PropertyListSerialization.data(
///       fromPropertyList: value.propertyListObject, format: .binary, options: 0)
///     try data.write(to: url, options: .atomic)
///   }
/// }
///
/// @GraphStored(backed: .custom(FileBacking(url: settingsURL)))
/// var volume: Double = 0.5
/// ```
///
/// Thread safety: the library calls `load` and `save` for one place one at a time, from any
/// thread, and never while a graph lock is held.
public protocol StorageBacking: Hashable, Sendable, CustomStringConvertible {
  /// What the place holds now; nil when it holds nothing. Throwing, or returning a value of
  /// another type, makes the property read its default and report a ``StorageDiagnostic``.
  func load() throws -> PropertyListValue?

  /// Replaces what the place holds; nil removes it. Called at once for every write, and
  /// with the previous content when a ``withGraphBatch(_:)`` that wrote rolls back.
  func save(_ value: PropertyListValue?) throws

  /// Starts telling the library when the place may have changed by other means than the
  /// nodes backed by it (another process, other code in this one); the library then loads
  /// it and updates the nodes if the value differs. Calling `onChange` when nothing
  /// changed is harmless. Watching stops when the returned ``StorageWatch`` is cancelled
  /// or released.
  ///
  /// The default implementation watches nothing: nodes then follow each other, not
  /// outside writers.
  func watch(_ onChange: @escaping @Sendable () -> Void) -> StorageWatch
}

extension StorageBacking {
  public func watch(_ onChange: @escaping @Sendable () -> Void) -> StorageWatch {
    StorageWatch {}
  }
}

/// Keeps a ``StorageBacking/watch(_:)`` registration alive; cancelling or releasing it
/// stops the watching.
///
/// ```swift
/// func watch(_ onChange: @escaping @Sendable () -> Void) -> StorageWatch {
///   let timer = Timer.scheduledTimer(withTimeInterval: 1, repeats: true) { _ in onChange() }
///   return StorageWatch { timer.invalidate() }
/// }
/// ```
public final class StorageWatch: Sendable {
  private let stop: Locked<(@Sendable () -> Void)?>

  /// - Parameter cancel: stops the watching; called once, on the first ``cancel()`` or
  ///   when the watch is released.
  public init(cancel: @escaping @Sendable () -> Void) {
    stop = Locked(cancel)
  }

  deinit { cancel() }

  /// Stops the watching. Idempotent.
  public func cancel() {
    let cancel = stop.withLock { stop in
      defer { stop = nil }
      return stop
    }
    cancel?()  // outside the lock: it is user code
  }
}
