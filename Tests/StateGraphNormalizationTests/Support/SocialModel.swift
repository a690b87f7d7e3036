import StateGraphNormalization

/// Upstream's complete social-media example (its normalization guide's "Complete Example"), with
/// two changes: `@unchecked Sendable` on the types the closures capture
/// (what the Swift 6 language mode asks for), and a run counter in every
/// computation so tests can assert exactly what ran.
enum Social {
  final class NormalizedStore: @unchecked Sendable {
    let runs = RunCounter()

    @GraphStored
    var users: EntityStore<User> = .init()

    @GraphStored
    var posts: EntityStore<Post> = .init()

    @GraphStored
    var comments: EntityStore<Comment> = .init()
  }

  final class User: TypedIdentifiable, @unchecked Sendable {
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID

    @GraphStored var name: String
    @GraphStored var email: String
    @GraphStored var followerIds: Set<User.TypedID>

    @GraphComputed var posts: [Post]
    @GraphComputed var followers: [User]
    @GraphComputed var followerCount: Int

    init(id: String, name: String, email: String, store: NormalizedStore) {
      self.typedID = .init(id)
      self.name = name
      self.email = email
      self.followerIds = []

      self.$posts = .init { _ in
        store.runs.count("\(id).posts", store.posts.filter { $0.authorId == self.id })
      }

      self.$followers = .init { [$followerIds] _ in
        store.runs.count(
          "\(id).followers",
          $followerIds.wrappedValue.compactMap { followerId in
            store.users.get(by: followerId)
          })
      }

      self.$followerCount = .init { [$followers] _ in
        store.runs.count("\(id).followerCount", $followers.wrappedValue.count)
      }
    }
  }

  final class Post: TypedIdentifiable, @unchecked Sendable {
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID

    @GraphStored var title: String
    @GraphStored var content: String
    @GraphStored var likes: Int

    let authorId: User.TypedID

    @GraphComputed var author: User?
    @GraphComputed var comments: [Comment]
    @GraphComputed var commentCount: Int

    init(id: String, title: String, content: String, authorId: User.TypedID, store: NormalizedStore) {
      self.typedID = .init(id)
      self.title = title
      self.content = content
      self.likes = 0
      self.authorId = authorId

      self.$author = .init { _ in
        store.runs.count("\(id).author", store.users.get(by: self.authorId))
      }

      self.$comments = .init { _ in
        store.runs.count("\(id).comments", store.comments.filter { $0.postId == self.id })
      }

      self.$commentCount = .init { [$comments] _ in
        store.runs.count("\(id).commentCount", $comments.wrappedValue.count)
      }
    }
  }

  final class Comment: TypedIdentifiable, @unchecked Sendable {
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID

    @GraphStored var text: String
    @GraphStored var likes: Int

    let postId: Post.TypedID
    let authorId: User.TypedID

    @GraphComputed var author: User?
    @GraphComputed var post: Post?

    init(id: String, text: String, postId: Post.TypedID, authorId: User.TypedID, store: NormalizedStore) {
      self.typedID = .init(id)
      self.text = text
      self.likes = 0
      self.postId = postId
      self.authorId = authorId

      self.$author = .init { _ in
        store.runs.count("\(id).author", store.users.get(by: self.authorId))
      }

      self.$post = .init { _ in
        store.runs.count("\(id).post", store.posts.get(by: self.postId))
      }
    }
  }

  final class FeedViewModel: @unchecked Sendable {
    let store: NormalizedStore
    let currentUserId: User.TypedID

    @GraphComputed var feedPosts: [Post]
    @GraphComputed var trendingPosts: [Post]

    init(store: NormalizedStore, currentUserId: User.TypedID) {
      self.store = store
      self.currentUserId = currentUserId

      // Posts from followed users
      self.$feedPosts = .init { _ in
        store.runs.count("feedPosts", ())
        guard let currentUser = store.users.get(by: currentUserId) else { return [] }

        let followedUserIds = currentUser.followerIds
        return store.posts.filter { post in
          followedUserIds.contains(post.authorId)
        }.sorted { $0.likes > $1.likes }
      }

      // Posts with high engagement
      self.$trendingPosts = .init { _ in
        store.runs.count("trendingPosts", ())
        return store.posts.filter { $0.likes > 10 }
          .sorted { $0.likes > $1.likes }
          .prefix(20)
          .map { $0 }
      }
    }
  }

  final class PostDetailViewModel: @unchecked Sendable {
    @GraphStored var selectedPostId: Post.TypedID?

    @GraphComputed var selectedPost: Post?
    @GraphComputed var relatedPosts: [Post]

    init(store: NormalizedStore) {
      self.$selectedPost = .init { [$selectedPostId] _ in
        store.runs.count("selectedPost", ())
        guard let postId = $selectedPostId.wrappedValue else { return nil }
        return store.posts.get(by: postId)
      }

      self.$relatedPosts = .init { [$selectedPost] _ in
        store.runs.count("relatedPosts", ())
        guard let post = $selectedPost.wrappedValue else { return [] }

        // Find posts by the same author
        return store.posts.filter { otherPost in
          otherPost.authorId == post.authorId && otherPost.id != post.id
        }
      }
    }
  }
}
