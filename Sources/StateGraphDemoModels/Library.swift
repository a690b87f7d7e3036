import StateGraph

final class Author {
  @GraphStored
  var name: String

  init(name: String) {
    self.name = name
  }
}

final class Tag {
  @GraphStored
  var name: String

  init(name: String) {
    self.name = name
  }
}

final class Book {
  let author: Author

  @GraphStored
  var title: String

  @GraphStored
  var tags: [Tag]

  init(author: Author, title: String, tags: [Tag]) {
    self.author = author
    self.title = title
    self.tags = tags
  }
}

func library() {
  let john = Author(name: "John Smith")
  let programming = Tag(name: "Programming")
  let swift = Tag(name: "Swift")
  let book = Book(author: john, title: "Swift Programming", tags: [programming, swift])

  let libraryCollection = Stored(name: "library", wrappedValue: [book])
  let booksByJohn = Computed(name: "booksByJohn") { _ in
    libraryCollection.wrappedValue.filter { $0.author.name == "John Smith" }
  }
  say("books by John: \(booksByJohn.wrappedValue.map(\.title))")
  libraryCollection.wrappedValue.append(
    Book(author: john, title: "Advanced Swift", tags: [programming, swift]))
  say("after adding one: \(booksByJohn.wrappedValue.count) books")
  john.name = "J. Smith"
  say("author renamed → books by \"John Smith\": \(booksByJohn.wrappedValue.count)")
}
