import StateGraphNormalization

// The social-media example of upstream swift-state-graph's normalization guide, with a
// log line in each computation so the demo shows exactly what recomputes when one post
// is liked.

final class RecomputeLog {
  private(set) var names: [String] = []
  func ran<T>(_ name: String, _ value: T) -> T {
    names.append(name)
    return value
  }
  func take() -> [String] {
    defer { names = [] }
    return names
  }
}

final class NormalizedStore {
  let log = RecomputeLog()

  @GraphStored
  var users: EntityStore<User> = .init()

  @GraphStored
  var posts: EntityStore<Post> = .init()

  @GraphStored
  var comments: EntityStore<Comment> = .init()
}

final class User: TypedIdentifiable {
  typealias TypedIdentifierRawValue = String
  let typedID: TypedID

  @GraphStored var name: String
  @GraphStored var followerIds: Set<User.TypedID>

  @GraphComputed var posts: [Post]
  @GraphComputed var followerCount: Int

  init(id: String, name: String, store: NormalizedStore) {
    self.typedID = .init(id)
    self.name = name
    self.followerIds = []

    self.$posts = .init { [unowned self] _ in
      store.log.ran("\(name).posts", store.posts.filter { $0.authorId == self.id })
    }
    self.$followerCount = .init { [$followerIds] _ in
      store.log.ran("\(name).followerCount", $followerIds.wrappedValue.count)
    }
  }
}

final class Post: TypedIdentifiable {
  typealias TypedIdentifierRawValue = String
  let typedID: TypedID

  @GraphStored var title: String
  @GraphStored var likes: Int
  let authorId: User.TypedID

  @GraphComputed var commentCount: Int

  init(id: String, title: String, authorId: User.TypedID, store: NormalizedStore) {
    self.typedID = .init(id)
    self.title = title
    self.likes = 0
    self.authorId = authorId
    self.$commentCount = .init { [unowned self] _ in
      store.log.ran("\"\(title)\".commentCount", store.comments.filter { $0.postId == self.id }.count)
    }
  }
}

final class Comment: TypedIdentifiable {
  typealias TypedIdentifierRawValue = String
  let typedID: TypedID

  @GraphStored var text: String
  let postId: Post.TypedID

  init(id: String, text: String, postId: Post.TypedID) {
    self.typedID = .init(id)
    self.text = text
    self.postId = postId
  }
}

final class FeedViewModel {
  @GraphComputed var feedPosts: [Post]
  @GraphComputed var trendingPosts: [Post]

  init(store: NormalizedStore, currentUserId: User.TypedID) {
    self.$feedPosts = .init { _ in
      guard let currentUser = store.users.get(by: currentUserId) else { return [] }
      let followedUserIds = currentUser.followerIds
      return store.log.ran(
        "feed",
        store.posts.filter { followedUserIds.contains($0.authorId) }.sorted { $0.likes > $1.likes })
    }
    self.$trendingPosts = .init { _ in
      store.log.ran(
        "trending",
        store.posts.filter { $0.likes > 10 }.sorted { $0.likes > $1.likes }.prefix(20).map { $0 })
    }
  }
}

func socialMedia() {
  let store = NormalizedStore()
  let alice = User(id: "alice", name: "Alice", store: store)
  let bob = User(id: "bob", name: "Bob", store: store)
  store.users.add([alice, bob])
  bob.followerIds = [alice.id]

  let hello = Post(id: "p1", title: "Hello World", authorId: alice.id, store: store)
  let second = Post(id: "p2", title: "Second post", authorId: alice.id, store: store)
  store.posts.add([hello, second])
  store.comments.add(Comment(id: "c1", text: "Great post!", postId: hello.id))

  let feed = FeedViewModel(store: store, currentUserId: bob.id)
  func show() {
    say("posts by Alice: \(alice.posts.count), comments on \"Hello World\": \(hello.commentCount)")
    say("Bob's feed: \(feed.feedPosts.map(\.title)); trending: \(feed.trendingPosts.map(\.title))")
  }
  show()
  say("recomputed: \(store.log.take().joined(separator: ", "))")

  say("— \"Second post\" gets 11 likes")
  second.likes = 11
  show()
  say("recomputed: \(store.log.take().joined(separator: ", ")) — nothing else")

  say("— Bob renames himself (no computation reads names)")
  bob.name = "Robert"
  show()
  let after = store.log.take()
  say("recomputed: \(after.isEmpty ? "nothing" : after.joined(separator: ", "))")
}
