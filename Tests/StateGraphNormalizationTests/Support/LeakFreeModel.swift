import StateGraphNormalization

/// The social model written so that a store and its entities can be freed:
/// computations capture IDs by value and the store weakly, and the way back
/// from a post to its author is a plain computed property, which caches
/// nothing (it is as reactive as a `@GraphComputed`: its reads are tracked
/// in whatever computation calls it).
enum LeakFree {
  final class NormalizedStore: @unchecked Sendable {
    @GraphStored var users: EntityStore<User> = .init()
    @GraphStored var posts: EntityStore<Post> = .init()
  }

  final class User: TypedIdentifiable, @unchecked Sendable {
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID

    @GraphStored var name: String
    @GraphComputed var posts: [Post]
    @GraphComputed var postCount: Int

    init(id: String, name: String, store: NormalizedStore) {
      self.typedID = .init(id)
      self.name = name
      self.$posts = .init { [id = typedID, weak store] _ in
        store?.posts.filter { $0.authorId == id } ?? []
      }
      self.$postCount = .init { [$posts] _ in $posts.wrappedValue.count }
    }
  }

  final class Post: TypedIdentifiable, @unchecked Sendable {
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID
    let authorId: User.TypedID
    weak var store: NormalizedStore?

    @GraphStored var likes: Int
    @GraphComputed var authorName: String

    /// The author, looked up on every call.
    var author: User? { store?.users.get(by: authorId) }

    init(id: String, authorId: User.TypedID, store: NormalizedStore) {
      self.typedID = .init(id)
      self.authorId = authorId
      self.store = store
      self.likes = 0
      // Caches a String, not the User: no reference back to the author.
      self.$authorName = .init { [authorId, weak store] _ in
        store?.users.get(by: authorId)?.name ?? "Unknown"
      }
    }
  }
}
