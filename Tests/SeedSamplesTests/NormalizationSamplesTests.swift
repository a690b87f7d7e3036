// The normalization samples of upstream swift-state-graph's "Data Normalization" guide
// and README, pasted as written and compiled in the Swift 5
// language mode. Samples that reuse a type name live in their own enum;
// lines marked "glue" are not in those samples: they supply what a snippet
// assumes exists (`user`, `userId`, a `User` with `isDeleted`...).

import StateGraphNormalization
import Testing

#if canImport(SwiftUI)
  import SwiftUI
#endif

// MARK: - 004 "Complete Example: Social Media Application" and "Advanced Patterns"

enum CompleteExampleSample {
  // 000 "NormalizedStore" (the 004 one also has `tags`, whose `Tag` needs
  // the many-to-many `Post`; see ManyToManySample).
  final class NormalizedStore {
    @GraphStored
    var users: EntityStore<User> = .init()

    @GraphStored
    var posts: EntityStore<Post> = .init()

    @GraphStored
    var comments: EntityStore<Comment> = .init()
  }

  // Entity definitions
  final class User: TypedIdentifiable {
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
        store.posts.filter { $0.authorId == self.id }
      }

      self.$followers = .init { [$followerIds] _ in
        $followerIds.wrappedValue.compactMap { followerId in
          store.users.get(by: followerId)
        }
      }

      self.$followerCount = .init { [$followers] _ in
        $followers.wrappedValue.count
      }
    }
  }

  final class Post: TypedIdentifiable {
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
        store.users.get(by: self.authorId)
      }

      self.$comments = .init { _ in
        store.comments.filter { $0.postId == self.id }
      }

      self.$commentCount = .init { [$comments] _ in
        $comments.wrappedValue.count
      }
    }
  }

  final class Comment: TypedIdentifiable {
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
        store.users.get(by: self.authorId)
      }

      self.$post = .init { _ in
        store.posts.get(by: self.postId)
      }
    }
  }

  final class FeedViewModel {
    let store: NormalizedStore
    let currentUserId: User.TypedID

    @GraphComputed var feedPosts: [Post]
    @GraphComputed var trendingPosts: [Post]

    init(store: NormalizedStore, currentUserId: User.TypedID) {
      self.store = store
      self.currentUserId = currentUserId

      // Posts from followed users
      self.$feedPosts = .init { _ in
        guard let currentUser = store.users.get(by: currentUserId) else { return [] }

        let followedUserIds = currentUser.followerIds
        return store.posts.filter { post in
          followedUserIds.contains(post.authorId)
        }.sorted { $0.likes > $1.likes }
      }

      // Posts with high engagement
      self.$trendingPosts = .init { _ in
        store.posts.filter { $0.likes > 10 }
          .sorted { $0.likes > $1.likes }
          .prefix(20)
          .map { $0 }
      }
    }
  }

  final class PostDetailViewModel {
    @GraphStored var selectedPostId: Post.TypedID?

    @GraphComputed var selectedPost: Post?
    @GraphComputed var relatedPosts: [Post]

    init(store: NormalizedStore) {
      self.$selectedPost = .init { [$selectedPostId] _ in
        guard let postId = $selectedPostId.wrappedValue else { return nil }
        return store.posts.get(by: postId)
      }

      self.$relatedPosts = .init { [$selectedPost] _ in
        guard let post = $selectedPost.wrappedValue else { return [] }

        // Find posts by the same author
        return store.posts.filter { otherPost in
          otherPost.authorId == post.authorId && otherPost.id != post.id
        }
      }
    }
  }

  #if canImport(SwiftUI)
    struct PostListView: View {
      let store: NormalizedStore

      var body: some View {
        List(store.posts.getAll()) { post in
          PostRow(post: post)
        }
      }
    }

    struct PostRow: View {
      let post: Post

      var body: some View {
        VStack(alignment: .leading) {
          Text(post.title)
            .font(.headline)

          Text("by \(post.author?.name ?? "Unknown")")
            .font(.caption)
            .foregroundColor(.secondary)

          Text("\(post.commentCount) comments • \(post.likes) likes")
            .font(.caption)
        }
      }
    }
  #endif
}

@Suite("Upstream samples: normalization, complete example")
struct CompleteExampleSampleTests {
  typealias NormalizedStore = CompleteExampleSample.NormalizedStore
  typealias User = CompleteExampleSample.User
  typealias Post = CompleteExampleSample.Post
  typealias Comment = CompleteExampleSample.Comment
  typealias FeedViewModel = CompleteExampleSample.FeedViewModel
  typealias PostDetailViewModel = CompleteExampleSample.PostDetailViewModel

  @Test func usage() {
    // Usage
    let store = NormalizedStore()

    // Create users
    let alice = User(id: "alice", name: "Alice", email: "alice@example.com", store: store)
    let bob = User(id: "bob", name: "Bob", email: "bob@example.com", store: store)

    store.users.add([alice, bob])

    // Create posts
    let post = Post(
      id: "post1",
      title: "Hello World",
      content: "My first post!",
      authorId: alice.id,
      store: store
    )

    store.posts.add(post)

    // Create comments
    let comment = Comment(
      id: "comment1",
      text: "Great post!",
      postId: post.id,
      authorId: bob.id,
      store: store
    )

    store.comments.add(comment)

    // Access relationships
    print("Posts by Alice: \(alice.posts.count)")
    print("Comments on post: \(post.commentCount)")
    print("Comment author: \(comment.author?.name ?? "Unknown")")

    #expect("Posts by Alice: \(alice.posts.count)" == "Posts by Alice: 1")  // glue
    #expect("Comments on post: \(post.commentCount)" == "Comments on post: 1")  // glue
    #expect(comment.author?.name == "Bob")  // glue
    #expect(comment.post === post)  // glue

    // glue: followers, feed and trending, related posts
    alice.followerIds = [bob.id]
    #expect(alice.followers.map(\.id) == [bob.id])
    #expect(alice.followerCount == 1)
    let bobsPost = Post(id: "post2", title: "Hi", content: "", authorId: bob.id, store: store)
    bobsPost.likes = 12
    store.posts.add(bobsPost)
    let feed = FeedViewModel(store: store, currentUserId: alice.id)
    #expect(feed.feedPosts.map(\.id) == [bobsPost.id])
    #expect(feed.trendingPosts.map(\.id) == [bobsPost.id])
    post.likes = 20
    #expect(feed.trendingPosts.map(\.id) == [post.id, bobsPost.id])
    let detail = PostDetailViewModel(store: store)
    #expect(detail.relatedPosts.isEmpty)
    store.posts.add(Post(id: "post3", title: "Again", content: "", authorId: alice.id, store: store))
    detail.selectedPostId = post.id
    #expect(detail.selectedPost === post)
    #expect(detail.relatedPosts.map(\.id) == ["post3"])
  }

  @Test func performanceConsiderations() {
    let store = NormalizedStore()  // glue
    store.users.add(User(id: "u1", name: "U", email: "u@example.com", store: store))  // glue
    let userId: User.TypedID = "u1"  // glue
    do {
      // ✅ Efficient: Direct lookup
      let user = store.users.get(by: userId)
      #expect(user?.name == "U")  // glue
    }
    do {
      // ❌ Inefficient: Linear search
      let user = store.users.getAll().first { $0.id == userId }
      #expect(user?.name == "U")  // glue
    }
  }
}

// MARK: - 004 "TypedIdentifiable Protocol", "NormalizedStore", "Many-to-Many Relationships"

enum ManyToManySample {
  typealias Comment = CompleteExampleSample.Comment  // glue: the store below names a Comment

  final class User: TypedIdentifiable {
    typealias TypedIdentifierRawValue = String

    let typedID: TypedID

    @GraphStored
    var name: String

    @GraphStored
    var email: String

    @GraphStored
    var isActive: Bool

    init(id: String, name: String, email: String) {
      self.typedID = .init(id)
      self.name = name
      self.email = email
      self.isActive = true
    }
  }

  final class NormalizedStore {
    @GraphStored
    var users: EntityStore<User> = .init()

    @GraphStored
    var posts: EntityStore<Post> = .init()

    @GraphStored
    var comments: EntityStore<Comment> = .init()

    @GraphStored
    var tags: EntityStore<Tag> = .init()
  }

  final class Post: TypedIdentifiable {
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID

    @GraphStored var title: String
    @GraphStored var tagIds: Set<Tag.TypedID>

    // Computed property for related tags
    @GraphComputed var tags: [Tag]

    init(id: String, title: String, store: NormalizedStore) {
      self.typedID = .init(id)
      self.title = title
      self.tagIds = []

      self.$tags = .init { [$tagIds] _ in
        $tagIds.wrappedValue.compactMap { tagId in
          store.tags.get(by: tagId)
        }
      }
    }
  }

  final class Tag: TypedIdentifiable {
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID

    @GraphStored var name: String

    // Computed property for posts with this tag
    @GraphComputed var posts: [Post]

    init(id: String, name: String, store: NormalizedStore) {
      self.typedID = .init(id)
      self.name = name

      self.$posts = .init { _ in
        store.posts.filter { post in
          post.tagIds.contains(self.id)
        }
      }
    }
  }
}

@Suite("Upstream samples: normalization, TypedIdentifiable and many-to-many")
struct ManyToManySampleTests {
  typealias NormalizedStore = ManyToManySample.NormalizedStore
  typealias User = ManyToManySample.User
  typealias Post = ManyToManySample.Post
  typealias Tag = ManyToManySample.Tag

  @Test func typedIdentifiable() {
    let userStore = EntityStore<User>()  // glue
    userStore.add(User(id: "user123", name: "Ann", email: "ann@example.com"))  // glue

    // Usage with type-safe IDs
    let userId: User.TypedID = .init("user123")
    let user = userStore.get(by: userId)

    #expect(user?.name == "Ann")  // glue
    #expect(user?.isActive == true)  // glue
  }

  @Test func normalizedStore() {
    // Create a single store instance for your app
    let store = NormalizedStore()

    #expect(store.users.isEmpty && store.posts.isEmpty && store.tags.isEmpty)  // glue
  }

  @Test func manyToMany() {  // glue
    let store = NormalizedStore()
    let swift = Tag(id: "swift", name: "Swift", store: store)
    let c = Tag(id: "c", name: "C", store: store)
    store.tags.add([swift, c])
    let first = Post(id: "p1", title: "One", store: store)
    let second = Post(id: "p2", title: "Two", store: store)
    store.posts.add([first, second])
    #expect(swift.posts.isEmpty)

    first.tagIds = [swift.id, c.id]
    second.tagIds = [swift.id]
    #expect(Set(first.tags.map(\.id)) == [swift.id, c.id])
    #expect(swift.posts.map(\.id) == [first.id, second.id])
    #expect(c.posts.map(\.id) == [first.id])

    store.tags.delete(c.id)
    #expect(first.tags.map(\.id) == [swift.id])
  }

  @Test func batchOperations() {
    let store = NormalizedStore()  // glue
    let user1 = User(id: "1", name: "One", email: "1@example.com")  // glue
    let user2 = User(id: "2", name: "Two", email: "2@example.com")  // glue
    let user3 = User(id: "3", name: "Three", email: "3@example.com")  // glue
    let userIds = [user1.id, user3.id]  // glue

    // Add multiple entities at once
    store.users.add([user1, user2, user3])

    // Modify entities in batch
    userIds.forEach { userId in
      store.users.modify(userId) { user in
        user.isActive = false
      }
    }

    #expect(store.users.filter(\.isActive).map(\.id) == [user2.id])  // glue
  }
}

// MARK: - 004 "One-to-Many Relationships"

enum OneToManySample {
  typealias User = CompleteExampleSample.User  // glue: the store below names a User
  typealias Comment = CompleteExampleSample.Comment  // glue: and a Comment

  // glue: 000 "NormalizedStore", holding this sample's `Post`
  final class NormalizedStore {
    @GraphStored
    var users: EntityStore<User> = .init()

    @GraphStored
    var posts: EntityStore<Post> = .init()

    @GraphStored
    var comments: EntityStore<Comment> = .init()
  }

  final class Author: TypedIdentifiable {
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID

    @GraphStored var name: String

    // Computed property for posts by this author
    @GraphComputed var posts: [Post]

    init(id: String, name: String, store: NormalizedStore) {
      self.typedID = .init(id)
      self.name = name

      // Define the relationship
      self.$posts = .init { _ in
        store.posts.filter { $0.authorId == self.id }
      }
    }
  }

  final class Post: TypedIdentifiable {
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID

    @GraphStored var title: String
    @GraphStored var content: String

    // Reference to author
    let authorId: Author.TypedID

    init(id: String, title: String, content: String, authorId: Author.TypedID) {
      self.typedID = .init(id)
      self.title = title
      self.content = content
      self.authorId = authorId
    }
  }
}

@Suite("Upstream samples: normalization, one-to-many")
struct OneToManySampleTests {
  @Test func authorsPosts() {  // glue
    let store = OneToManySample.NormalizedStore()
    let author = OneToManySample.Author(id: "ann", name: "Ann", store: store)
    #expect(author.posts.isEmpty)
    store.posts.add(OneToManySample.Post(id: "p1", title: "T", content: "C", authorId: author.id))
    store.posts.add(OneToManySample.Post(id: "p2", title: "T", content: "C", authorId: "other"))
    #expect(author.posts.map(\.id) == ["p1"])
  }
}

// MARK: - 004 "EntityStore" and "EntityStore Operations"

enum EntityStoreSample {
  // glue: the snippets use a `User` with a mutable `name` and an `isDeleted`
  struct User: TypedIdentifiable, Equatable {
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID
    var name: String
    var isDeleted = false
  }
  final class Post: TypedIdentifiable {  // glue
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID = "post1"
  }
  final class Comment: TypedIdentifiable {  // glue
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID = "comment1"
  }
}

@Suite("Upstream samples: normalization, EntityStore")
struct EntityStoreSampleTests {
  typealias User = EntityStoreSample.User
  typealias Post = EntityStoreSample.Post
  typealias Comment = EntityStoreSample.Comment

  let user = User(typedID: "u1", name: "Ann")  // glue
  let post = Post()  // glue
  let userId: User.TypedID = "u1"  // glue
  let updatedUser = User(typedID: "u1", name: "Ann B.")  // glue

  @Test func entityStore() {
    // Creating entity stores for different types
    let userStore = EntityStore<User>()
    let postStore = EntityStore<Post>()
    let commentStore = EntityStore<Comment>()

    // Adding entities
    userStore.add(user)
    postStore.add(post)

    do {
      // Retrieving entities
      let user = userStore.get(by: userId)
      let allUsers = userStore.getAll()
      #expect(user == self.user && allUsers == [self.user])  // glue
    }

    // Filtering entities
    let activeUsers = userStore.filter { !$0.isDeleted }
    #expect(activeUsers == [user])  // glue

    // Updating entities
    userStore.update(updatedUser)
    #expect(userStore.get(by: userId) == updatedUser)  // glue
    // or modify in place
    userStore.modify(userId) { user in
      user.name = "New Name"
    }
    #expect(userStore.get(by: userId)?.name == "New Name")  // glue

    // Checking conditions
    let hasUser = userStore.contains(userId)
    let count = userStore.count
    #expect(hasUser && count == 1)  // glue

    // Removing entities
    userStore.delete(userId)
    #expect(userStore.isEmpty && commentStore.isEmpty && postStore.count == 1)  // glue
  }

  @Test func entityStoreOperations() {
    let userStore = EntityStore<User>()  // glue
    let user1 = user, user2 = User(typedID: "u2", name: "Bo"), user3 = User(typedID: "u3", name: "Cy")  // glue

    // Bulk operations
    userStore.add([user1, user2, user3])

    // Subscript access
    userStore[userId] = updatedUser
    let user = userStore[userId]
    #expect(user == updatedUser)  // glue

    // Collection properties
    if userStore.isEmpty {
      print("No users found")
    }

    print("Total users: \(userStore.count)")
    #expect("Total users: \(userStore.count)" == "Total users: 3")  // glue
  }
}

// MARK: - 000 "Data Normalization": "Example: Social Media Application"

enum ReadmeExampleSample {
  final class NormalizedStore {
    @GraphStored
    var users: EntityStore<User> = .init()

    @GraphStored
    var posts: EntityStore<Post> = .init()

    @GraphStored
    var comments: EntityStore<Comment> = .init()
  }

  // Define entity types
  final class User: TypedIdentifiable {
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID

    @GraphStored var name: String
    @GraphComputed var posts: [Post]

    init(id: String, name: String, store: NormalizedStore) {
      self.typedID = .init(id)
      self.name = name
      self.$posts = .init { _ in
        store.posts.filter { $0.author.id == self.id }
      }
    }
  }

  final class Post: TypedIdentifiable {
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID

    @GraphStored var title: String
    @GraphStored var content: String
    let author: User

    @GraphComputed var comments: [Comment]

    init(id: String, title: String, content: String, author: User, store: NormalizedStore) {
      self.typedID = .init(id)
      self.title = title
      self.content = content
      self.author = author
      self.$comments = .init { _ in
        store.comments.filter { $0.post.id == self.id }
      }
    }
  }

  final class Comment: TypedIdentifiable {
    typealias TypedIdentifierRawValue = String
    let typedID: TypedID

    @GraphStored var text: String
    let post: Post
    let author: User

    init(id: String, text: String, post: Post, author: User) {
      self.typedID = .init(id)
      self.text = text
      self.post = post
      self.author = author
    }
  }
}

@Suite("Upstream samples: normalization, README example")
struct ReadmeExampleSampleTests {
  typealias NormalizedStore = ReadmeExampleSample.NormalizedStore
  typealias User = ReadmeExampleSample.User
  typealias Post = ReadmeExampleSample.Post
  typealias Comment = ReadmeExampleSample.Comment

  @Test func usage() {
    // Create and use a normalized store
    let store = NormalizedStore()

    // Create entities
    let user = User(id: "user1", name: "John", store: store)
    store.users.add(user)

    let post = Post(id: "post1", title: "Hello World", content: "My first post", author: user, store: store)
    store.posts.add(post)

    let comment = Comment(id: "comment1", text: "Great post!", post: post, author: user)
    store.comments.add(comment)

    // Access related entities through computed properties
    print(user.posts.count) // 1
    print(post.comments.count) // 1

    #expect(user.posts.count == 1)  // glue
    #expect(post.comments.count == 1)  // glue
  }
}
