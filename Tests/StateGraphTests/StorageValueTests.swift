import Foundation
import StateGraph
import Testing

enum Theme: String {
  case light, dark
}

enum Level: Int, Codable {
  case low = 1
  case high = 2
}

struct Layout: Codable, Equatable {
  var name: String
  var columns: Int
}

/// Writes `written` through a node on a key that holds nothing, checks what the key then
/// holds, and reads it back through a fresh node (the first one is gone, so the value
/// really comes from UserDefaults).
private func checkRoundTrip<Value: Equatable>(
  _ declared: Value, _ written: Value, stored expected: PropertyListValue?,
  readsBack: Value? = nil, sourceLocation: SourceLocation = #_sourceLocation,
  _ make: (Value, GraphStorageBacking) -> Stored<Value>
) {
  let suite = ScratchSuite()
  defer { suite.remove() }
  do {
    let node = make(declared, suite.backing("value"))
    #expect(
      node.wrappedValue == declared, "an empty key reads the declared value",
      sourceLocation: sourceLocation)
    node.wrappedValue = written
    #expect(node.wrappedValue == readsBack ?? written, sourceLocation: sourceLocation)
    #expect(suite.stored("value") == expected, sourceLocation: sourceLocation)
  }
  let fresh = make(declared, suite.backing("value"))
  #expect(fresh.wrappedValue == readsBack ?? written, sourceLocation: sourceLocation)
}

@Suite("Storage: value kinds")
struct StorageValueTests {
  @Test func propertyListScalars() {
    checkRoundTrip(false, true, stored: .bool(true)) { Stored(wrappedValue: $0, backed: $1) }
    checkRoundTrip(0, -42, stored: .integer(-42)) { Stored(wrappedValue: $0, backed: $1) }
    checkRoundTrip(0.0, 2.5, stored: .real(2.5)) { Stored(wrappedValue: $0, backed: $1) }
    checkRoundTrip(Float(0), Float(0.1), stored: .real(Double(Float(0.1)))) {
      Stored(wrappedValue: $0, backed: $1)
    }
    checkRoundTrip("", "héllo", stored: .string("héllo")) { Stored(wrappedValue: $0, backed: $1) }
    checkRoundTrip(Data(), Data([0, 1, 254, 255]), stored: .data(Data([0, 1, 254, 255]))) {
      Stored(wrappedValue: $0, backed: $1)
    }
    // A date is a real number of seconds since the reference date: every bit is kept.
    let date = Date(timeIntervalSince1970: 1_700_000_000.123_456)
    checkRoundTrip(
      Date(timeIntervalSince1970: 0), date, stored: .real(date.timeIntervalSinceReferenceDate)
    ) {
      Stored(wrappedValue: $0, backed: $1)
    }
  }

  @Test func urls() {
    let web = URL(string: "https://swift.org/documentation/")!
    checkRoundTrip(URL(string: "https://example.com")!, web, stored: .string(web.absoluteString)) {
      Stored(wrappedValue: $0, backed: $1)
    }
    let file = URL(fileURLWithPath: "/tmp/state graph.txt")
    checkRoundTrip(web, file, stored: .string(file.absoluteString)) {
      Stored(wrappedValue: $0, backed: $1)
    }
  }

  /// A web URL written through `@GraphUserDefault` read back as `file:///x` on Linux:
  /// it was saved with `UserDefaults.set(_: URL?, forKey:)`, which stores a plain path there.
  @Test func aWebURLKeepsItsSchemeThroughBothSpellings() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let written = URL(string: "https://b.example/x")!
    let declared = URL(string: "https://a.example/")!
    let link = GraphUserDefault(wrappedValue: declared, "link", store: suite.defaults)
    link.wrappedValue = written
    #expect(link.wrappedValue == written)
    #expect(GraphUserDefault(wrappedValue: declared, "link", store: suite.defaults).wrappedValue == written)
    #expect(Stored(wrappedValue: declared, backed: suite.backing("link")).wrappedValue == written)
    #expect(suite.stored("link") == .string("https://b.example/x"))
  }

  @Test func arraysAndDictionaries() {
    checkRoundTrip([String](), ["a", "b"], stored: .array([.string("a"), .string("b")])) {
      Stored(wrappedValue: $0, backed: $1)
    }
    checkRoundTrip(
      [String: Int](), ["a": 1, "b": 2], stored: .dictionary(["a": .integer(1), "b": .integer(2)])
    ) {
      Stored(wrappedValue: $0, backed: $1)
    }
    let nested: [String: [Double]] = ["sizes": [1, 2.5], "empty": []]
    checkRoundTrip(
      [:], nested,
      stored: .dictionary(["sizes": .array([.real(1), .real(2.5)]), "empty": .array([])])
    ) { Stored(wrappedValue: $0, backed: $1) }
    checkRoundTrip(
      [[Bool]](), [[true], [false, true]],
      stored: .array([.array([.bool(true)]), .array([.bool(false), .bool(true)])])
    ) {
      Stored(wrappedValue: $0, backed: $1)
    }
  }

  @Test func rawRepresentableEnumsAreStoredAsTheirRawValue() {
    checkRoundTrip(Theme.light, .dark, stored: .string("dark")) {
      Stored(wrappedValue: $0, backed: $1)
    }
    // Codable too: the raw value still wins over JSON.
    checkRoundTrip(Level.low, .high, stored: .integer(2)) { Stored(wrappedValue: $0, backed: $1) }
  }

  /// swift-state-graph's `@GraphUserDefault` saved a `Codable` enum as JSON data; such a
  /// key still reads, and the next write stores the raw value.
  @Test func aCodableEnumSavedAsJSONStillReads() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    suite.defaults.set(Data("2".utf8), forKey: "level")
    let level = Stored(wrappedValue: Level.low, backed: suite.backing("level"))
    #expect(level.wrappedValue == .high)
    level.wrappedValue = .low
    #expect(suite.stored("level") == .integer(1))
    // A raw-value enum that is not Codable has no JSON form to fall back to.
    suite.defaults.set(Data(#""dark""#.utf8), forKey: "theme")
    #expect(Stored(wrappedValue: Theme.light, backed: suite.backing("theme")).wrappedValue == .light)
  }

  @Test func codableValuesAreStoredAsJSONData() throws {
    let written = Layout(name: "grid", columns: 3)
    let json = Data(#"{"columns":3,"name":"grid"}"#.utf8)
    checkRoundTrip(Layout(name: "list", columns: 1), written, stored: .data(json)) {
      Stored(wrappedValue: $0, backed: $1)
    }
    // Collections of non-property-list values go through JSON as well.
    checkRoundTrip([Level](), [.high, .low], stored: .data(Data("[2,1]".utf8))) {
      Stored(wrappedValue: $0, backed: $1)
    }
  }

  @Test func optionalsStoreTheirValueAndNilRemovesTheKey() {
    checkRoundTrip(String?.none, "token", stored: .string("token")) {
      Stored(wrappedValue: $0, backed: $1)
    }
    checkRoundTrip(Theme?.none, .dark, stored: .string("dark")) {
      Stored(wrappedValue: $0, backed: $1)
    }
    checkRoundTrip(Level?.none, .high, stored: .integer(2)) { Stored(wrappedValue: $0, backed: $1) }
    checkRoundTrip(
      Layout?.none, Layout(name: "a", columns: 2),
      stored: .data(Data(#"{"columns":2,"name":"a"}"#.utf8))
    ) {
      Stored(wrappedValue: $0, backed: $1)
    }
    checkRoundTrip([String: Int]?.none, ["a": 1], stored: .dictionary(["a": .integer(1)])) {
      Stored(wrappedValue: $0, backed: $1)
    }
  }

  @Test func settingNilRemovesTheKey() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let token = Stored<String?>(wrappedValue: nil, backed: suite.backing("token"))
    token.wrappedValue = "abc"
    #expect(suite.defaults.object(forKey: "token") as? String == "abc")
    token.wrappedValue = nil
    #expect(suite.defaults.object(forKey: "token") == nil)
    #expect(token.wrappedValue == nil)

    // With a declared value, the emptied key reads as that value, now and next launch.
    let user = Stored<String?>(wrappedValue: "guest", backed: suite.backing("user"))
    user.wrappedValue = "ada"
    user.wrappedValue = nil
    #expect(suite.defaults.object(forKey: "user") == nil)
    #expect(user.wrappedValue == "guest")
  }

  @Test func theInitialValueIsWhatTheKeyHolds() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    suite.defaults.set("dark", forKey: "theme")
    suite.defaults.set(3, forKey: "count")
    suite.defaults.set(["a": [1, 2]], forKey: "nested")
    #expect(Stored(wrappedValue: Theme.light, backed: suite.backing("theme")).wrappedValue == .dark)
    #expect(Stored(wrappedValue: 0, backed: suite.backing("count")).wrappedValue == 3)
    // A Double reads an integer that other code wrote, and a whole real reads as an Int.
    #expect(Stored(wrappedValue: 0.0, backed: suite.backing("count")).wrappedValue == 3.0)
    suite.defaults.set(4.0, forKey: "whole")
    #expect(Stored(wrappedValue: 0, backed: suite.backing("whole")).wrappedValue == 4)
    #expect(
      Stored(wrappedValue: [String: [Int]](), backed: suite.backing("nested")).wrappedValue == [
        "a": [1, 2]
      ])
    // Nothing stored: the declared value, and nothing is written.
    #expect(Stored(wrappedValue: "light", backed: suite.backing("missing")).wrappedValue == "light")
    #expect(suite.defaults.object(forKey: "missing") == nil)
  }

  @Test func literalsTakeTheirDefaultTypes() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    // `Decimal` is Codable and a float literal too: 0.5 must still be a Double.
    #expect(type(of: Stored(wrappedValue: 0.5, backed: suite.backing("a"))) == Stored<Double>.self)
    #expect(type(of: Stored(wrappedValue: 1, backed: suite.backing("b"))) == Stored<Int>.self)
    #expect(
      type(of: Stored(wrappedValue: [1.5], backed: suite.backing("c"))) == Stored<[Double]>.self)
  }

  @Test func memoryBackingKeepsNothing() {
    let node = Stored(wrappedValue: 1, backed: .memory)
    node.wrappedValue = 2
    #expect(node.wrappedValue == 2)
    let other = Stored(wrappedValue: 1, backed: .memory)
    #expect(other.wrappedValue == 1)
  }

  @Test func bothSpellingsNameTheSameKey() {
    let key = "stategraph.tests.spelling.\(UUID().uuidString)"
    defer { UserDefaults.standard.removeObject(forKey: key) }
    let first = Stored(wrappedValue: "", backed: .userDefaults(key: key))
    let second = Stored(wrappedValue: "", backed: UserDefaultsMarker.userDefaults(key: key))
    let third = Stored(wrappedValue: "", backed: .custom(UserDefaultsBacking(key: key)))
    first.wrappedValue = "shared"
    #expect(second.wrappedValue == "shared")
    #expect(third.wrappedValue == "shared")
    #expect(UserDefaults.standard.string(forKey: key) == "shared")
  }

  @Test func propertyListValuesConvertBothWays() {
    let value: PropertyListValue = .dictionary([
      "flag": .bool(true), "count": .integer(-3), "ratio": .real(0.5), "name": .string("x"),
      "bytes": .data(Data([1])), "when": .date(Date(timeIntervalSince1970: 10)),
      "list": .array([.integer(1), .array([])]),
    ])
    #expect(PropertyListValue(propertyListObject: value.propertyListObject) == value)
    #expect(PropertyListValue(propertyListObject: NSObject()) == nil)
    #expect(PropertyListValue(propertyListObject: [1: "non-string key"]) == nil)
  }

  /// `PropertyListSerialization` (and Apple's UserDefaults) return `NSNumber`s, which a
  /// plain `as? Bool` would confuse: 1 and 0 must stay integers.
  @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
  func numbersKeepTheirKindThroughPropertyListSerialization(
    format: PropertyListSerialization.PropertyListFormat
  ) throws {
    let value: PropertyListValue = .array([
      .integer(1), .integer(0), .bool(true), .bool(false), .real(2.5), .real(1), .integer(-7),
    ])
    let data = try PropertyListSerialization.data(
      fromPropertyList: value.propertyListObject, format: format, options: 0)
    let object = try PropertyListSerialization.propertyList(from: data, format: nil)
    #expect(PropertyListValue(propertyListObject: object) == value)
    #expect(PropertyListValue(propertyListObject: NSNumber(value: 1)) == .integer(1))
    #expect(PropertyListValue(propertyListObject: NSNumber(value: true)) == .bool(true))
    #expect(PropertyListValue(propertyListObject: NSNumber(value: 0.25)) == .real(0.25))
    #expect(PropertyListValue(propertyListObject: Int64(5)) == .integer(5))
    #expect(PropertyListValue(propertyListObject: UInt64.max) == nil)
  }
}
