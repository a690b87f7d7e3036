import Foundation
import StateGraph
import Testing

/// `FileBacking` (StorageSupport.swift) plugs a plist file in through `StorageBacking`.
@Suite("Storage: a custom backing")
struct StorageCustomBackingTests {
  @Test func aFileKeepsTheValue() throws {
    let file = ScratchFile()
    defer { file.remove() }
    do {
      let volume = Stored(wrappedValue: 0.5, backed: file.backing)
      #expect(volume.wrappedValue == 0.5)
      #expect(FileManager.default.fileExists(atPath: file.url.path) == false)
      volume.wrappedValue = 0.8
    }
    let data = try #require(FileManager.default.contents(atPath: file.url.path))
    let object = try PropertyListSerialization.propertyList(from: data, format: nil)
    #expect(object as? Double == 0.8)
    #expect(Stored(wrappedValue: 0.5, backed: file.backing).wrappedValue == 0.8)
  }

  @Test func nilRemovesTheFile() {
    let file = ScratchFile()
    defer { file.remove() }
    let token = Stored<String?>(wrappedValue: nil, backed: file.backing)
    token.wrappedValue = "secret"
    #expect(FileManager.default.fileExists(atPath: file.url.path))
    token.wrappedValue = nil
    #expect(FileManager.default.fileExists(atPath: file.url.path) == false)
  }

  @Test func nodesOnOneFileFollowEachOther() {
    let file = ScratchFile()
    defer { file.remove() }
    let first = Stored(wrappedValue: Layout(name: "list", columns: 1), backed: file.backing)
    let second = Stored(wrappedValue: Layout(name: "list", columns: 1), backed: file.backing)
    let runs = Counter()
    let columns = Computed { _ in runs.run(second.wrappedValue.columns) }
    #expect(columns.wrappedValue == 1)
    first.wrappedValue = Layout(name: "grid", columns: 3)
    #expect(columns.wrappedValue == 3)
    #expect(runs.value == 2)
  }

  @Test func aWriteToTheFileFromOutsideIsFollowed() async throws {
    let file = ScratchFile()
    defer { file.remove() }
    let count = Stored(wrappedValue: 0, backed: file.backing)
    let seen = Recorder<Int>()
    let subscription = withGraphTracking { count.onChange { seen.append($0) } }
    let data = try PropertyListSerialization.data(fromPropertyList: 9, format: .xml, options: 0)
    try data.write(to: file.url, options: .atomic)
    #expect(await eventually { seen.values == [0, 9] })
    #expect(count.wrappedValue == 9)
    _ = subscription
  }

  @Test func aNodeIsFreedWithItsLastReferenceAndWatchingStops() {
    let place = CountingBacking()
    weak var weakNode: Stored<String>?
    do {
      let first = Stored(wrappedValue: "", backed: .custom(place))
      let second = Stored(wrappedValue: "", backed: .custom(place))
      first.wrappedValue = "kept"
      #expect(second.wrappedValue == "kept")
      #expect(place.activeWatches == 1)  // one watch per place, not per node
      weakNode = first
    }
    #expect(weakNode == nil)
    #expect(place.activeWatches == 0)
    #expect(place.value == .string("kept"))
    #expect(Stored(wrappedValue: "", backed: .custom(place)).wrappedValue == "kept")
  }
}

/// A backing in memory that counts the watches the library holds on it.
final class CountingBacking: StorageBacking, @unchecked Sendable {
  private let lock = NSLock()
  private var stored: PropertyListValue?
  private var watches = 0

  var value: PropertyListValue? { lock.withLock { stored } }
  var activeWatches: Int { lock.withLock { watches } }
  var description: String { "counting backing" }

  static func == (lhs: CountingBacking, rhs: CountingBacking) -> Bool { lhs === rhs }
  func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

  func load() throws -> PropertyListValue? { value }
  func save(_ value: PropertyListValue?) throws { lock.withLock { stored = value } }

  func watch(_ onChange: @escaping @Sendable () -> Void) -> StorageWatch {
    lock.withLock { watches += 1 }
    return StorageWatch { self.lock.withLock { self.watches -= 1 } }
  }
}
