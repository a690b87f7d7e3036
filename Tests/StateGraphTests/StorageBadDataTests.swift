import Foundation
import StateGraph
import Testing

/// A key holding something the property cannot read never crashes and never loses data:
/// the property reads its declared value, a diagnostic names the key and the types, and
/// the stored value stays as it is until the program writes.
@Suite("Storage: bad data")
struct StorageBadDataTests {
  init() { Diagnostics.start() }

  @Test func aValueOfAnotherTypeReadsTheDefaultAndIsKept() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    suite.defaults.set("twelve", forKey: "count")

    let count = Stored(wrappedValue: 7, backed: suite.backing("count"))
    #expect(count.wrappedValue == 7)
    #expect(suite.stored("count") == .string("twelve"))

    let reports = Diagnostics.about(suite.name)
    #expect(reports.count == 1)
    #expect(reports.first?.kind == .typeMismatch)
    #expect(reports.first?.valueType == "Int")
    #expect(reports.first?.detail == #"a string ("twelve")"#)
    let message = reports.first?.description ?? ""
    #expect(
      message.contains(#"key "count""#) && message.contains("Int") && message.contains("twelve"))

    // Only a write replaces the stored value.
    count.wrappedValue = 12
    #expect(suite.stored("count") == .integer(12))
  }

  @Test func corruptJSONReadsTheDefaultAndKeepsTheBytes() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let corrupt = Data(#"{"name": "grid", "columns": "#.utf8)
    suite.defaults.set(corrupt, forKey: "layout")

    let declared = Layout(name: "list", columns: 1)
    let layout = Stored(wrappedValue: declared, backed: suite.backing("layout"))
    #expect(layout.wrappedValue == declared)
    #expect(suite.stored("layout") == .data(corrupt))
    let reports = Diagnostics.about(suite.name)
    #expect(reports.map(\.kind) == [.undecodable])
    #expect(reports.first?.valueType == "Layout")

    // JSON of the wrong shape is undecodable too.
    let wrongShape = Data(#"{"name": "grid"}"#.utf8)
    suite.defaults.set(wrongShape, forKey: "layout2")
    #expect(
      Stored(wrappedValue: declared, backed: suite.backing("layout2")).wrappedValue == declared)
    #expect(suite.stored("layout2") == .data(wrongShape))
  }

  @Test func anUnknownRawValueReadsTheDefault() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    suite.defaults.set("purple", forKey: "theme")
    let theme = Stored(wrappedValue: Theme.light, backed: suite.backing("theme"))
    #expect(theme.wrappedValue == .light)
    #expect(suite.stored("theme") == .string("purple"))
    #expect(Diagnostics.about(suite.name).map(\.kind) == [.typeMismatch])
    #expect(Diagnostics.about(suite.name).first?.valueType == "Theme")
  }

  @Test func anArrayWithOneBadElementIsAMismatch() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    suite.defaults.set(["a", 2] as [Any], forKey: "names")
    let names = Stored(wrappedValue: ["x"], backed: suite.backing("names"))
    #expect(names.wrappedValue == ["x"])
    #expect(suite.stored("names") == .array([.string("a"), .integer(2)]))
  }

  @Test func badDataWrittenWhileANodeIsAliveFallsBackToTheDefault() async {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let count = Stored(wrappedValue: 0, backed: suite.backing("count"))
    count.wrappedValue = 5
    suite.defaults.set(Data([1, 2, 3]), forKey: "count")
    #expect(await eventually { count.wrappedValue == 0 })
    #expect(suite.stored("count") == .data(Data([1, 2, 3])))
    #expect(await eventually { Diagnostics.about(suite.name).map(\.kind) == [.typeMismatch] })
  }

  @Test func aBackingThatFailsToLoadReadsTheDefault() async {
    let file = ScratchFile()
    defer { file.remove() }
    let garbage = Data("not a property list <<<".utf8)
    #expect(FileManager.default.createFile(atPath: file.url.path, contents: garbage))
    let volume = Stored(wrappedValue: 0.5, backed: file.backing)
    #expect(volume.wrappedValue == 0.5)
    #expect(FileManager.default.contents(atPath: file.url.path) == garbage)
    // Reported by whichever thread finds it first: the node's, or the polling that the
    // node's joining started, whose report may still be on its way.
    #expect(await eventually { Diagnostics.about(file.url.path).first?.kind == .loadFailed })
  }

  /// Never a silently different value: the node keeps what the place holds.
  @Test func aValueThatCannotBeEncodedLeavesNodeAndPlaceAsTheyWere() {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let ratios = Stored(wrappedValue: [Level: Double](), backed: suite.backing("ratios"))
    ratios.wrappedValue = [.low: 0.5]
    let stored = suite.stored("ratios")
    #expect(stored == .data(Data(#"[1,0.5]"#.utf8)))
    ratios.wrappedValue = [.high: .infinity]  // JSON has no infinity
    #expect(ratios.wrappedValue == [.low: 0.5])
    #expect(suite.stored("ratios") == stored)
    #expect(Diagnostics.about(suite.name).map(\.kind) == [.unencodable])
    #expect(
      Stored(wrappedValue: [Level: Double](), backed: suite.backing("ratios")).wrappedValue == [
        .low: 0.5
      ])
  }
}
