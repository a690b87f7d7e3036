import Foundation
import Observation
import Testing

@testable import StateGraph

/// `@GraphUserDefault`, swift-state-graph 0.26's spelling of a UserDefaults-backed property,
/// with the behaviour its tests pin (rewritten here).
@Suite("@GraphUserDefault", .serialized)
struct StorageGraphUserDefaultTests {
  private struct Profile: Codable, Equatable, UserDefaultsStorable {
    var name: String
    var count: Int
  }

  private final class Settings {
    @GraphUserDefault var theme: String

    init(key: String, store: UserDefaults) {
      _theme = GraphUserDefault(wrappedValue: "light", key, store: store)
    }
  }

  private func announceChange(of store: UserDefaults) {
    NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: store)
  }

  @Test func theProjectionIsTheWrapperAndWritesSave() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let store = suite.defaults
    let theme = GraphUserDefault(wrappedValue: "light", "theme", store: store)
    let projection: GraphUserDefault<String> = theme.projectedValue
    #expect(projection === theme)
    #expect(theme.wrappedValue == "light")
    #expect(store.object(forKey: "theme") == nil)  // the declared value is not saved
    projection.wrappedValue = "dark"
    #expect(theme.wrappedValue == "dark")
    #expect(store.string(forKey: "theme") == "dark")
  }

  @Test func startsWithWhatTheKeyHolds() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    suite.defaults.set("dark", forKey: "theme")
    let theme = GraphUserDefault(wrappedValue: "light", "theme", store: suite.defaults)
    #expect(theme.wrappedValue == "dark")
  }

  @Test func aKeptProjectionGoesOnFollowingTheKeyAfterItsOwnerIsGone() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let store = suite.defaults
    var settings: Settings? = Settings(key: "theme", store: store)
    let projection = settings!.$theme
    settings = nil
    store.set("sepia", forKey: "theme")
    announceChange(of: store)
    #expect(projection.wrappedValue == "sepia")
    projection.wrappedValue = "dark"
    #expect(store.string(forKey: "theme") == "dark")
  }

  @Test func aNamedSuiteIsOpenedByName() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let answer = GraphUserDefault(wrappedValue: 42, "answer", suiteName: suite.name)
    answer.wrappedValue = 100
    #expect(answer.wrappedValue == 100)
    #expect(suite.defaults.integer(forKey: "answer") == 100)
  }

  @Test func scalarsAndOptionalsRoundTrip() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let store = suite.defaults
    let integer = GraphUserDefault(wrappedValue: 0, "int", store: store)
    let flag = GraphUserDefault(wrappedValue: false, "bool", store: store)
    let ratio = GraphUserDefault(wrappedValue: 0.0, "double", store: store)
    let note = GraphUserDefault<String?>(wrappedValue: nil, "note", store: store)
    integer.wrappedValue = 42
    flag.wrappedValue = true
    ratio.wrappedValue = 3.25
    note.wrappedValue = "hello"
    #expect(store.integer(forKey: "int") == 42)
    #expect(store.bool(forKey: "bool") == true)
    #expect(store.double(forKey: "double") == 3.25)
    #expect(store.string(forKey: "note") == "hello")
    let reopened = GraphUserDefault<String?>(wrappedValue: nil, "note", store: store)
    #expect(reopened.wrappedValue == "hello")
    note.wrappedValue = nil
    #expect(store.object(forKey: "note") == nil)
    #expect(note.wrappedValue == nil)
  }

  @Test func aCodableValueIsSavedAsJSONAndReadBack() throws {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let store = suite.defaults
    let profile = GraphUserDefault(wrappedValue: Profile(name: "default", count: 0), "profile", store: store)
    profile.wrappedValue = Profile(name: "saved", count: 42)
    let data = try #require(store.data(forKey: "profile"))
    #expect(try JSONDecoder().decode(Profile.self, from: data) == Profile(name: "saved", count: 42))
    let restored = GraphUserDefault(wrappedValue: Profile(name: "fallback", count: -1), "profile", store: store)
    #expect(restored.wrappedValue == Profile(name: "saved", count: 42))
  }

  @Test func unreadableContentFallsBackToTheDeclaredValue() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    suite.defaults.set("not json", forKey: "profile")
    let profile = GraphUserDefault(
      wrappedValue: Profile(name: "fallback", count: -1), "profile", store: suite.defaults)
    #expect(profile.wrappedValue == Profile(name: "fallback", count: -1))
  }

  @Test func aLocalWriteCallsOnDidSetOnceAndItsNotificationDoesNotEcho() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let store = suite.defaults
    let theme = GraphUserDefault(wrappedValue: "light", "theme", store: store)
    let seen = Recorder<String>()
    theme.projectedValue.onDidSet { oldValue, newValue in seen.append("\(oldValue)->\(newValue)") }
    theme.wrappedValue = "dark"
    #expect(seen.values == ["light->dark"])
    announceChange(of: store)
    theme.wrappedValue = "dark"  // the key holds it already: no change, no call
    #expect(seen.values == ["light->dark"])
  }

  @Test func anOutsideChangeIsTakenOnceForRepeatedNotifications() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let store = suite.defaults
    let theme = GraphUserDefault(wrappedValue: "light", "theme", store: store)
    let seen = Recorder<String>()
    theme.onDidSet { oldValue, newValue in seen.append("\(oldValue)->\(newValue)") }
    store.set("sepia", forKey: "theme")
    announceChange(of: store)
    announceChange(of: store)
    #expect(theme.wrappedValue == "sepia")
    #expect(seen.values == ["light->sepia"])
  }

  @Test func twoPropertiesOnOneKeyConverge() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let store = suite.defaults
    let first = GraphUserDefault(wrappedValue: "light", "theme", store: store)
    let second = GraphUserDefault(wrappedValue: "light", "theme", store: store)
    first.wrappedValue = "dark"
    announceChange(of: store)
    #expect(first.wrappedValue == "dark")
    #expect(second.wrappedValue == "dark")
  }

  @Test func computationsAndObserversFollowOutsideChanges() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let store = suite.defaults
    let theme = GraphUserDefault(wrappedValue: "light", "theme", store: store)
    let label = Computed { _ in "theme: \(theme.wrappedValue)" }
    let seen = Recorder<String>()
    let subscription = withGraphTracking {
      label.onChange { seen.append($0) }
    }
    store.set("sepia", forKey: "theme")
    announceChange(of: store)
    #expect(label.wrappedValue == "theme: sepia")
    #expect(seen.values == ["theme: light", "theme: sepia"])
    _ = subscription
  }

  @Test func onLinuxAnUnannouncedWriteIsFoundByPolling() async {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let store = suite.defaults
    let theme = GraphUserDefault(wrappedValue: "light", "theme", store: store)
    store.set("sepia", forKey: "theme")  // no notification: Linux's Foundation posts none
    #expect(await eventually { theme.wrappedValue == "sepia" })
  }

  @Test func onDidSetMayWriteAgainAndSeesItsOwnWrite() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let theme = GraphUserDefault(wrappedValue: "light", "theme", store: suite.defaults)
    let seenInside = Recorder<String>()
    theme.onDidSet { _, newValue in
      guard newValue == "first" else { return }
      theme.wrappedValue = "second"
      seenInside.append(theme.wrappedValue)
    }
    theme.wrappedValue = "first"
    #expect(seenInside.values == ["second"])
    #expect(theme.wrappedValue == "second")
    #expect(suite.defaults.string(forKey: "theme") == "second")
  }

  @Test func onDidSetRunsWithNoLockHeld() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let store = suite.defaults
    let theme = GraphUserDefault(wrappedValue: "light", "theme", store: store)
    let other = GraphUserDefault(wrappedValue: 0, "other", store: store)
    let otherThreadFinished = Recorder<Bool>()
    theme.onDidSet { _, _ in
      // Another thread reads this node and writes another key while the handler runs.
      let done = startThread {
        _ = theme.wrappedValue
        other.wrappedValue = 1
      }
      otherThreadFinished.append(done.wait(seconds: 5))
    }
    theme.wrappedValue = "dark"
    #expect(otherThreadFinished.values == [true])
    #expect(other.wrappedValue == 1)
  }

  @Test func theAttributeSpellingReadsAndSavesTheStandardDefaults() {
    final class Preferences {
      @GraphUserDefault("stategraph.tests.parity.username") var username: String = "anonymous"
    }
    let key = "stategraph.tests.parity.username"
    UserDefaults.standard.removeObject(forKey: key)
    defer { UserDefaults.standard.removeObject(forKey: key) }
    let preferences = Preferences()
    #expect(preferences.username == "anonymous")
    preferences.username = "blob"
    #expect(UserDefaults.standard.string(forKey: key) == "blob")
    #expect(Preferences().username == "blob")
    let seen = Recorder<String>()
    preferences.$username.onDidSet { _, newValue in seen.append(newValue) }
    preferences.username = "kim"
    #expect(seen.values == ["kim"])
  }

  @Test func racingWritersEndWithTheNodeOnWhatTheKeyHolds() async {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let store = suite.defaults
    let counter = GraphUserDefault(wrappedValue: 0, "counter", store: store)
    let other = GraphUserDefault(wrappedValue: 0, "counter", store: store)
    await withTaskGroup(of: Void.self) { group in
      for writer in 0..<8 {
        group.addTask {
          for step in 0..<50 { (writer % 2 == 0 ? counter : other).wrappedValue = writer * 1000 + step }
        }
      }
    }
    // Values reach a node in the order they were read from the key, so the property that
    // saved last holds that value already, however the publications raced. (A race test:
    // out-of-order publication shows only in some runs.)
    let saved = store.integer(forKey: "counter")
    let lastWriter = (saved / 1000) % 2 == 0 ? counter : other
    #expect(lastWriter.wrappedValue == saved)
    announceChange(of: store)  // the other property hears of it through the key
    #expect(counter.wrappedValue == store.integer(forKey: "counter"))
    #expect(other.wrappedValue == store.integer(forKey: "counter"))
  }

  @Test func aPropertyWithNoOwnerIsFreed() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    weak var freed: GraphUserDefault<String>?
    do {
      let theme = GraphUserDefault(wrappedValue: "light", "theme", store: suite.defaults)
      freed = theme
      theme.wrappedValue = "dark"
    }
    #expect(freed == nil)  // the notification observer and the poll hold it weakly
  }

  /// A value whose save posts `didChangeNotification` on the saving thread, as Apple's
  /// `UserDefaults` does (Linux's posts nothing).
  private struct Announced: UserDefaultsStorable {
    var text: String
    static func _getValue(from defaults: UserDefaults, forKey key: String, defaultValue: Self) -> Self {
      defaults.string(forKey: key).map(Self.init) ?? defaultValue
    }
    func _setValue(to defaults: UserDefaults, forKey key: String) {
      defaults.set(text, forKey: key)
      NotificationCenter.default.post(name: UserDefaults.didChangeNotification, object: defaults)
    }
  }

  /// A writer never waits for another writer's observers: the first write's
  /// `withObservationTracking` handler blocks, and a second write from another thread
  /// still finishes. (It waited: the save's own change notification refreshed the
  /// property, and ran the handler, under the lock every save takes.)
  @Test func aWriterDoesNotWaitForAnotherWritersObservationHandler() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let theme = GraphUserDefault(wrappedValue: Announced(text: "light"), "theme", store: suite.defaults)
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    let calls = Counter()
    withObservationTracking { _ = theme.wrappedValue } onChange: {
      // Observation calls a tracking's onChange for every write until the first call
      // returns (as for an `@Observable` class): only the first one blocks.
      calls.tick()
      guard calls.value == 1 else { return }
      entered.signal()
      release.wait()
    }
    let first = startThread { theme.wrappedValue = Announced(text: "dark") }
    #expect(entered.wait(seconds: 10))
    #expect(onAnotherThread(timeout: .seconds(10)) { theme.wrappedValue = Announced(text: "sepia") })
    release.signal()
    #expect(first.wait(seconds: 10))
    #expect(theme.wrappedValue.text == suite.defaults.string(forKey: "theme"))
  }
}
