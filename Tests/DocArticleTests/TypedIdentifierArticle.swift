// Keeps the code of TypedIdentifier.docc/TypedIdentifier.md compiling and checked.
import Testing
import TypedIdentifier

final class Member: TypedIdentifiable {
  typealias TypedIdentifierRawValue = String
  let typedID: TypedID

  init(id: String) {
    self.typedID = .init(id)
  }
}

@Suite struct TypedIdentifierArticleTests {
  @Test func identifiers() {
    let lines = printedLines {
      let id: Member.TypedID = "member-1"
      let sameID = Member.TypedID(rawValue: "member-1")
      let ids: Set<Member.TypedID> = [id, sameID, "member-2"]
      print(id, ids.count)
    }
    #expect(lines == ["member-1 2"])
  }
}
