import Foundation
import Testing
import TypedIdentifier

@Suite("TypedIdentifier")
struct TypedIdentifierTests {
  @Test func wrapsARawValue() {
    let id: Note.TypedID = .init("note1")
    #expect(id.rawValue == "note1")
    #expect(Note.TypedID(rawValue: "note1") == id)
    #expect(Reading.TypedID(7).rawValue == 7)
  }

  @Test func identifiableIDIsTheTypedID() {
    let note = Note("note1", "Hello")
    #expect(note.id == note.typedID)
    #expect(Note.ID.self == Note.TypedID.self)
    #expect(Note.TypedID.self == TypedIdentifier<Note>.self)
  }

  @Test func equalityAndHashingFollowTheRawValue() {
    let ids: Set<Note.TypedID> = [.init("a"), .init("b"), .init("a")]
    #expect(ids.count == 2)
    #expect(ids.contains("a"))
    #expect(Note.TypedID("a") != Note.TypedID("b"))
    #expect(Note.TypedID("a").hashValue == Note.TypedID("a").hashValue)
  }

  @Test func literalsBuildIDs() {
    let fromString: Note.TypedID = "note1"
    let fromInteger: Reading.TypedID = 42
    #expect(fromString.rawValue == "note1")
    #expect(fromInteger.rawValue == 42)
  }

  @Test func comparesByRawValue() {
    let ids: [Reading.TypedID] = [3, 1, 2]
    #expect(ids.sorted().map(\.rawValue) == [1, 2, 3])
    #expect(Note.TypedID("a") < Note.TypedID("b"))
  }

  @Test func describesItselfAsTheRawValue() {
    let id: Note.TypedID = "note1"
    #expect(id.description == "note1")
    #expect("\(id)" == "note1")
    #expect(String(describing: Reading.TypedID(7)) == "7")
    #expect(id.debugDescription == #"Note.TypedID("note1")"#)
  }

  @Test func encodesAsTheBareRawValue() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let strings = try encoder.encode([Note.TypedID("a"), "b"])
    #expect(String(decoding: strings, as: UTF8.self) == #"["a","b"]"#)
    let integers = try encoder.encode([Reading.TypedID(1), 2])
    #expect(String(decoding: integers, as: UTF8.self) == "[1,2]")
    let keyed = try encoder.encode([Note.TypedID("a"): 1, "b": 2])
    #expect(String(decoding: keyed, as: UTF8.self) == #"{"a":1,"b":2}"#)
  }

  @Test func decodesFromTheBareRawValue() throws {
    let decoder = JSONDecoder()
    let ids = try decoder.decode([Note.TypedID].self, from: Data(#"["a","b"]"#.utf8))
    #expect(ids == ["a", "b"])
    let keyed = try decoder.decode([Reading.TypedID: String].self, from: Data(#"{"7":"x"}"#.utf8))
    #expect(keyed == [7: "x"])
    #expect(throws: DecodingError.self) {
      try decoder.decode([Reading.TypedID].self, from: Data(#"["seven"]"#.utf8))
    }
  }

  @Test func isSendable() async {
    let id: Note.TypedID = "note1"
    let echoed = await Task.detached { id }.value
    #expect(echoed == id)
  }
}
