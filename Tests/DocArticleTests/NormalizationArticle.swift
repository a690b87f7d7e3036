// Keeps the code of StateGraphNormalization.docc/StateGraphNormalization.md (the landing
// page) and StateGraphNormalization.docc/NormalizingRelationalData.md compiling and checked.
import StateGraphNormalization
import Testing

final class Library {
  @GraphStored var authors: EntityStore<Writer> = .init()
  @GraphStored var books: EntityStore<Book> = .init()
}

final class Writer: TypedIdentifiable {
  typealias TypedIdentifierRawValue = String
  let typedID: TypedID
  @GraphStored var name: String

  init(id: String, name: String) {
    self.typedID = .init(id)
    self.name = name
  }
}

final class Book: TypedIdentifiable {
  typealias TypedIdentifierRawValue = String
  let typedID: TypedID
  let authorID: Writer.TypedID
  @GraphStored var title: String
  @GraphStored var likes: Int = 0

  init(id: String, title: String, authorID: Writer.TypedID) {
    self.typedID = .init(id)
    self.title = title
    self.authorID = authorID
  }
}

final class Shelf: TypedIdentifiable {
  typealias TypedIdentifierRawValue = Int
  let typedID: TypedID
  @GraphStored var bookIDs: [Book.TypedID] = []
  @GraphComputed var titles: [String]

  init(id: Int, library: Library) {
    self.typedID = .init(id)
    self.$titles = .init { [$bookIDs, weak library] _ in
      $bookIDs.wrappedValue.compactMap { library?.books.get(by: $0)?.title }
    }
  }
}

@Suite struct NormalizationArticleTests {
  @Test func storeAndRelationships() {
    let lines = printedLines {
      let library = Library()
      let ada = Writer(id: "ada", name: "Ada")
      library.authors.add(ada)
      library.books.add([
        Book(id: "notes", title: "Notes", authorID: ada.typedID),
        Book(id: "sketch", title: "Sketch", authorID: "brian"),
      ])

      let booksByAda = Computed { _ in
        library.books.filter { $0.authorID == ada.typedID }.map(\.title)
      }
      let authorOfSketch = Computed { _ in
        library.books.get(by: "sketch").flatMap { library.authors.get(by: $0.authorID) }?.name
      }
      print(booksByAda.wrappedValue, authorOfSketch.wrappedValue ?? "unknown")
      library.authors.add(Writer(id: "brian", name: "Brian"))
      print(authorOfSketch.wrappedValue ?? "unknown")
    }
    #expect(lines == [#"["Notes"] unknown"#, "Brian"])
  }

  @Test func shelf() {
    let library = Library()
    let shelf = Shelf(id: 1, library: library)
    library.books.add(Book(id: "notes", title: "Notes", authorID: "ada"))
    shelf.bookIDs = ["notes", "missing"]
    #expect(shelf.titles == ["Notes"])
    library.books.modify("notes") { $0.title = "Notes, 2nd ed." }
    #expect(shelf.titles == ["Notes, 2nd ed."])
  }
}
