import Foundation
import StateGraph

/// A UserDefaults suite of one test's own: a unique name, removed (with its file on Linux)
/// by `remove()`.
struct ScratchSuite: Sendable {
  let name: String

  init(_ label: String = #function) {
    let tag = label.filter { $0.isLetter || $0.isNumber }
    name = "stategraph.tests.\(tag).\(UUID().uuidString)"
  }

  /// A UserDefaults object for the suite, as other code in the process would make it.
  var defaults: UserDefaults { UserDefaults(suiteName: name)! }

  func backing(_ key: String) -> GraphStorageBacking { .userDefaults(suite: name, key: key) }

  /// What the key holds, as a property list: the bytes a test checks are untouched.
  func stored(_ key: String) -> PropertyListValue? {
    defaults.object(forKey: key).flatMap(PropertyListValue.init(propertyListObject:))
  }

  func remove() {
    defaults.removePersistentDomain(forName: name)
    #if !canImport(Darwin)
      // swift-corelibs-foundation keeps the emptied plist file: delete it too.
      let home =
        ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"]
        ?? NSHomeDirectory() + "/.config"
      try? FileManager.default.removeItem(atPath: home + "/\(name).plist")
    #endif
  }
}

/// Runs `body` with a fresh suite and removes the suite afterwards.
func withScratchSuite<R>(
  _ label: String = #function, _ body: (ScratchSuite) async throws -> R
) async rethrows -> R {
  let suite = ScratchSuite(label)
  defer { suite.remove() }
  return try await body(suite)
}

/// Every ``StorageDiagnostic`` of the test process. Tests run in parallel, so each one
/// looks only at the diagnostics about its own suite or file.
enum Diagnostics {
  private static let all: Recorder<StorageDiagnostic> = {
    let recorder = Recorder<StorageDiagnostic>()
    StorageDiagnostic.handler = { diagnostic in
      recorder.append(diagnostic)
      StorageDiagnostic.printToStandardError(diagnostic)
    }
    return recorder
  }()

  /// Call before the code that should report.
  static func start() { _ = all }

  static func about(_ place: String) -> [StorageDiagnostic] {
    all.values.filter { $0.location.contains(place) }
  }
}

/// A file that holds one property list: the custom backing the tests plug in.
///
/// Nodes on the same file follow each other through the library; writes made to the file
/// by other means are found by polling its modification date and size.
struct FileBacking: StorageBacking {
  let url: URL

  var description: String { "file \(url.path)" }

  func load() throws -> PropertyListValue? {
    guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
    let object = try PropertyListSerialization.propertyList(from: data, format: nil)
    guard let value = PropertyListValue(propertyListObject: object) else {
      throw CocoaError(.propertyListReadCorrupt)
    }
    return value
  }

  func save(_ value: PropertyListValue?) throws {
    guard let value else {
      if FileManager.default.fileExists(atPath: url.path) {
        try FileManager.default.removeItem(at: url)
      }
      return
    }
    let data = try PropertyListSerialization.data(
      fromPropertyList: value.propertyListObject, format: .xml, options: 0)
    try data.write(to: url, options: .atomic)
  }

  func watch(_ onChange: @escaping @Sendable () -> Void) -> StorageWatch {
    let timer = DispatchSource.makeTimerSource(queue: .global())
    timer.schedule(deadline: .now(), repeating: .milliseconds(20))
    let path = url.path
    let lastStamp = LastValue<String?>(nil)
    timer.setEventHandler {
      let attributes = try? FileManager.default.attributesOfItem(atPath: path)
      let stamp = attributes.map { "\($0[.modificationDate] ?? "") \($0[.size] ?? "")" }
      if lastStamp.swap(stamp) != stamp { onChange() }
    }
    timer.resume()
    let watching = Watching(timer: timer)
    return StorageWatch { watching.timer.cancel() }
  }

  /// A dispatch source is thread-safe; the Dispatch module does not say so.
  private struct Watching: @unchecked Sendable {
    let timer: any DispatchSourceTimer
  }
}

/// A scratch file for one test, deleted by `remove()`.
struct ScratchFile: Sendable {
  let url = FileManager.default.temporaryDirectory
    .appendingPathComponent("stategraph-tests-\(UUID().uuidString).plist")

  var backing: GraphStorageBacking { .custom(FileBacking(url: url)) }

  func remove() { try? FileManager.default.removeItem(at: url) }
}

/// One value that a timer replaces, handing back the previous one.
final class LastValue<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func swap(_ newValue: Value) -> Value {
    lock.withLock {
      defer { value = newValue }
      return value
    }
  }
}

/// A backing kept in memory whose next save, once armed, stores its value and then stops
/// until released: the place already holds the value while the writer is still inside
/// its save.
struct GatedBacking: StorageBacking {
  final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: PropertyListValue?
    private var armed = false
    /// Signalled when an armed save has stored its value and stopped.
    let held = DispatchSemaphore(value: 0)
    /// Signal to let the stopped save return.
    let release = DispatchSemaphore(value: 0)

    var value: PropertyListValue? { lock.withLock { stored } }

    func holdNextSave() { lock.withLock { armed = true } }

    fileprivate func save(_ value: PropertyListValue?) {
      let mustHold = lock.withLock {
        stored = value
        defer { armed = false }
        return armed
      }
      if mustHold {
        held.signal()
        _ = release.wait(timeout: .now() + .seconds(20))
      }
    }
  }

  let gate = Gate()

  var description: String { "gated backing" }

  func load() throws -> PropertyListValue? { gate.value }

  func save(_ value: PropertyListValue?) throws { gate.save(value) }

  static func == (lhs: Self, rhs: Self) -> Bool { lhs.gate === rhs.gate }

  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(gate)) }
}

/// A `UserDefaults` object handed to another thread: it is thread-safe, but Linux's
/// Foundation does not say so in its type.
struct SharedDefaults: @unchecked Sendable {
  let defaults: UserDefaults
  init(_ defaults: UserDefaults) { self.defaults = defaults }
}
