import StateGraphNormalization

/// A struct entity with value equality: writing an equal value is no change.
struct Note: TypedIdentifiable, Equatable, Sendable {
  typealias TypedIdentifierRawValue = String
  let typedID: TypedID
  var title: String
  var pinned = false

  init(_ id: String, _ title: String, pinned: Bool = false) {
    self.typedID = .init(id)
    self.title = title
    self.pinned = pinned
  }
}

/// A struct entity without `Equatable`: every write counts as a change.
struct Reading: TypedIdentifiable, Sendable {
  typealias TypedIdentifierRawValue = Int
  let typedID: TypedID
  var value: Double
}

/// A class entity whose properties are graph nodes.
final class Account: TypedIdentifiable, @unchecked Sendable {
  typealias TypedIdentifierRawValue = String
  let typedID: TypedID
  @GraphStored var name: String
  @GraphStored var balance: Int

  init(_ id: String, name: String, balance: Int = 0) {
    self.typedID = .init(id)
    self.name = name
    self.balance = balance
  }
}
