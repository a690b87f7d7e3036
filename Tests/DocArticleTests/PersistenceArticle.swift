// Keeps the code of StateGraph.docc/PersistingValues.md compiling and checked. The model
// uses fixed keys of UserDefaults.standard, so the suite runs its tests one at a time
// and removes those keys before and after.
import Foundation
import StateGraph
import Testing

final class SettingsModel {
  @GraphStored(backed: .userDefaults(key: "appTheme"))
  var theme: String = "light"

  @GraphStored(backed: .userDefaults(suite: "com.example.settings", key: "fontSize"))
  var fontSize: Double = 14

  @GraphStored(backed: .userDefaults(key: "lastOpened"))
  var lastOpened: Date?

  @GraphComputed var isDark: Bool

  init() {
    self.$isDark = .init { [$theme] _ in $theme.wrappedValue == "dark" }
  }
}

struct Layout: Codable, Equatable, UserDefaultsStorable {
  var columns: Int
  var showsSidebar: Bool
}

final class Preferences {
  @GraphUserDefault("appTheme") var theme: String = "light"
  @GraphUserDefault("layout", suiteName: "com.example.settings")
  var layout = Layout(columns: 2, showsSidebar: true)
}

enum Theme: String, Codable {
  case light, dark
}

struct MemoryBacking: StorageBacking {
  let name: String
  var description: String { "memory slot \(name)" }

  func load() throws -> PropertyListValue? {
    MemorySlots.shared.value(for: name)
  }

  func save(_ value: PropertyListValue?) throws {
    MemorySlots.shared.set(value, for: name)
  }
}

/// The place `MemoryBacking` writes to.
final class MemorySlots: @unchecked Sendable {
  static let shared = MemorySlots()
  private let lock = NSLock()
  private var slots: [String: PropertyListValue] = [:]

  func value(for name: String) -> PropertyListValue? { lock.withLock { slots[name] } }
  func set(_ value: PropertyListValue?, for name: String) { lock.withLock { slots[name] = value } }
}

@Suite(.serialized) struct PersistenceArticleTests {
  static let standardKeys = ["appTheme", "lastOpened"]

  init() { Self.clear() }

  static func clear() {
    for key in standardKeys { UserDefaults.standard.removeObject(forKey: key) }
    UserDefaults.standard.removePersistentDomain(forName: "com.example.settings")
  }

  @Test func settingsModel() {
    defer { Self.clear() }
    let settings = SettingsModel()
    #expect(settings.theme == "light")
    #expect(settings.fontSize == 14)
    #expect(settings.lastOpened == nil)
    settings.theme = "dark"
    settings.lastOpened = Date(timeIntervalSince1970: 0)
    #expect(settings.isDark)
    let again = SettingsModel()
    #expect(again.theme == "dark")
    #expect(again.lastOpened == Date(timeIntervalSince1970: 0))
    settings.lastOpened = nil
    #expect(UserDefaults.standard.object(forKey: "lastOpened") == nil)
  }

  @Test func graphUserDefaultSharesTheKeyWithGraphStored() {
    defer { Self.clear() }
    let preferences = Preferences()
    let settings = SettingsModel()
    #expect(preferences.theme == "light")
    preferences.theme = "dark"
    #expect(settings.theme == "dark")
    #expect(settings.isDark)
    settings.theme = "sepia"
    #expect(preferences.theme == "sepia")
    preferences.layout = Layout(columns: 3, showsSidebar: false)
    let data = UserDefaults(suiteName: "com.example.settings")?.data(forKey: "layout")
    #expect(data == Data(#"{"columns":3,"showsSidebar":false}"#.utf8))
    #expect(Preferences().layout == Layout(columns: 3, showsSidebar: false))
  }

  @Test func theFormsOfTheTable() {
    withScratchDefaults { suite in
      let defaults = UserDefaults(suiteName: suite)!
      let date = Date(timeIntervalSinceReferenceDate: 1234.5678)
      let opened = Stored(wrappedValue: Date.distantPast, backed: .userDefaults(suite: suite, key: "date"))
      opened.wrappedValue = date
      #expect(Date(timeIntervalSinceReferenceDate: defaults.double(forKey: "date")) == date)
      let link = GraphUserDefault(wrappedValue: URL(string: "https://a.example")!, "link", suiteName: suite)
      link.wrappedValue = URL(string: "https://b.example/x?q=1#top")!
      #expect(defaults.string(forKey: "link").flatMap(URL.init(string:)) == link.wrappedValue)
      let note = GraphUserDefault<String?>(wrappedValue: nil, "note", suiteName: suite)
      note.wrappedValue = "hi"
      #expect(defaults.string(forKey: "note") == "hi")
      note.wrappedValue = nil
      #expect(defaults.object(forKey: "note") == nil)
    }
  }

  @Test func aRolledBackWriteLeavesTheKey() {
    struct Cancelled: Error {}
    defer { Self.clear() }
    let preferences = Preferences()
    preferences.theme = "dark"
    try? withGraphBatch {
      preferences.theme = "sepia"
      throw Cancelled()
    }
    #expect(preferences.theme == "dark")
    #expect(UserDefaults.standard.string(forKey: "appTheme") == "dark")
  }

  @Test func withoutTheMacro() {
    withScratchDefaults { suite in
      let volume = Stored(wrappedValue: 0.5, backed: .userDefaults(suite: suite, key: "volume"))
      volume.wrappedValue = 0.8
      #expect(UserDefaults(suiteName: suite)?.double(forKey: "volume") == 0.8)
    }
  }

  @Test func rawRepresentable() {
    withScratchDefaults { suite in
      let theme = Stored(wrappedValue: Theme.light, backed: .userDefaults(suite: suite, key: "appTheme"))
      theme.wrappedValue = .dark
      #expect(UserDefaults(suiteName: suite)?.string(forKey: "appTheme") == "dark")
    }
  }

  @Test func diagnosticHandler() {
    let previous = StorageDiagnostic.handler
    defer { StorageDiagnostic.handler = previous }
    let lines = printedLines {
      StorageDiagnostic.handler = { diagnostic in
        print("settings: \(diagnostic)")
      }
    }
    #expect(lines.isEmpty)
  }

  @Test func customBacking() {
    let counter = Stored(wrappedValue: 0, backed: .custom(MemoryBacking(name: "launches")))
    counter.wrappedValue += 1
    #expect(MemorySlots.shared.value(for: "launches") == .integer(1))
    let again = Stored(wrappedValue: 0, backed: .custom(MemoryBacking(name: "launches")))
    #expect(again.wrappedValue == 1)
  }
}
