/// A type whose instances carry an identifier that names their type:
/// `User.TypedID` and `Post.TypedID` are different types, so passing a post's
/// ID where a user's is expected does not compile.
///
/// ```swift
/// final class User: TypedIdentifiable {
///   typealias TypedIdentifierRawValue = String
///   let typedID: TypedID
///
///   init(id: String) {
///     self.typedID = .init(id)
///   }
/// }
///
/// let userID: User.TypedID = .init("user123")
/// let postID: Post.TypedID = .init("user123")
/// // userID == postID  // error: the types differ
/// ```
///
/// Conforming types are `Identifiable`: unless you declare your own `id`,
/// `id` is ``typedID``, so `$0.authorId == self.id` compares typed IDs and
/// SwiftUI's `List` and `ForEach` accept the entities directly.
///
/// For classes, the standard library also offers `id` as an
/// `ObjectIdentifier`, and the compiler falls back to it when the typed `id`
/// does not fit: `user.id == post.id` compiles (and is `false`). Comparing
/// typed IDs (`user.typedID == post.typedID`, `post.authorId == user.id`)
/// is the comparison the compiler checks.
///
/// Classes that conform should be `final`: `TypedID` names `Self`, which a
/// subclass would change.
public protocol TypedIdentifiable<TypedIdentifierRawValue>: Identifiable {
  /// What the identifier wraps: usually `String`, `Int` or `UUID`.
  associatedtype TypedIdentifierRawValue: Hashable & Sendable

  /// This type's identifier type.
  typealias TypedID = TypedIdentifier<Self>

  /// The instance's identifier. Keep it constant: an `EntityStore` files
  /// the entity under the ID it had when added.
  var typedID: TypedID { get }
}

extension TypedIdentifiable {
  /// The typed identifier, so that conforming types are `Identifiable`
  /// without writing anything more.
  ///
  /// - Complexity: O(1).
  public var id: TypedID { typedID }
}
