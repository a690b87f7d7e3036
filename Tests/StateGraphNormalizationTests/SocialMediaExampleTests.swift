import StateGraphNormalization
import Testing

/// Upstream's complete social-media example, its relationships and view
/// models, with exact counts of which computations run after each change.
@Suite("Social media example")
struct SocialMediaExampleTests {
  typealias User = Social.User
  typealias Post = Social.Post
  typealias Comment = Social.Comment

  let store = Social.NormalizedStore()
  var runs: RunCounter { store.runs }

  func user(_ id: String, _ name: String) -> User {
    User(id: id, name: name, email: "\(id)@example.com", store: store)
  }

  func post(_ id: String, by author: User, likes: Int = 0) -> Post {
    let post = Post(id: id, title: id, content: "", authorId: author.id, store: store)
    post.likes = likes
    return post
  }

  func comment(_ id: String, on post: Post, by author: User) -> Comment {
    Comment(id: id, text: id, postId: post.id, authorId: author.id, store: store)
  }

  func ids(_ entities: [some TypedIdentifiable<String>]) -> [String] {
    entities.map { "\($0.typedID)" }
  }

  @Test func theSeedsUsageSection() {
    let alice = User(id: "alice", name: "Alice", email: "alice@example.com", store: store)
    let bob = User(id: "bob", name: "Bob", email: "bob@example.com", store: store)
    store.users.add([alice, bob])
    let post = Post(
      id: "post1", title: "Hello World", content: "My first post!", authorId: alice.id,
      store: store)
    store.posts.add(post)
    let comment = Comment(
      id: "comment1", text: "Great post!", postId: post.id, authorId: bob.id, store: store)
    store.comments.add(comment)

    #expect("Posts by Alice: \(alice.posts.count)" == "Posts by Alice: 1")
    #expect("Comments on post: \(post.commentCount)" == "Comments on post: 1")
    #expect("Comment author: \(comment.author?.name ?? "Unknown")" == "Comment author: Bob")
  }

  @Test func postsByAuthorFollowMembershipNotLikes() {
    let alice = user("alice", "Alice")
    let bob = user("bob", "Bob")
    store.users.add([alice, bob])
    let first = post("p1", by: alice)
    store.posts.add(first)
    #expect(ids(alice.posts) == ["p1"])
    #expect(bob.posts.isEmpty)

    first.likes += 1
    first.title = "Edited"
    #expect(ids(alice.posts) == ["p1"])
    #expect(runs["alice.posts"] == 1)

    store.posts.add(post("p2", by: alice))
    #expect(ids(alice.posts) == ["p1", "p2"])
    #expect(bob.posts.isEmpty)
    #expect(runs["alice.posts"] == 2)
    #expect(runs["bob.posts"] == 2)  // a filter runs on every membership change

    store.posts.delete("p1")
    #expect(ids(alice.posts) == ["p2"])
    #expect(runs["alice.posts"] == 3)
  }

  @Test func commentCountsFollowTheirPostsComments() {
    let alice = user("alice", "Alice")
    let bob = user("bob", "Bob")
    store.users.add([alice, bob])
    let first = post("p1", by: alice)
    let second = post("p2", by: alice)
    store.posts.add([first, second])
    store.comments.add(comment("c1", on: first, by: bob))
    #expect(first.commentCount == 1)
    #expect(second.commentCount == 0)

    store.comments.get(by: "c1")?.text = "Edited"  // not read by either count
    #expect(first.commentCount == 1)
    #expect(runs["p1.comments"] == 1)
    #expect(runs["p1.commentCount"] == 1)

    store.comments.add(comment("c2", on: first, by: alice))
    #expect(first.commentCount == 2)
    #expect(ids(first.comments) == ["c1", "c2"])
    #expect(runs["p1.comments"] == 2)
    #expect(runs["p1.commentCount"] == 2)

    store.comments.add(comment("c3", on: second, by: bob))
    #expect(first.commentCount == 2)
    #expect(second.commentCount == 1)
    // The filter runs again for any new comment; an array of classes is
    // never "equal", so the count runs too, and stops there (2 == 2).
    #expect(runs["p1.comments"] == 3)
    #expect(runs["p1.commentCount"] == 3)

    store.comments.delete("c1")
    #expect(first.commentCount == 1)
  }

  @Test func aCommentsAuthorIsOneLookup() {
    let alice = user("alice", "Alice")
    let bob = user("bob", "Bob")
    store.users.add([alice, bob])
    let first = post("p1", by: alice)
    store.posts.add(first)
    let reply = comment("c1", on: first, by: bob)
    store.comments.add(reply)
    #expect(reply.author?.name == "Bob")
    #expect(reply.post === first)

    bob.name = "Robert"  // same instance: the lookup stays valid
    store.users.add(user("carol", "Carol"))
    alice.name = "Alicia"
    first.likes = 3
    #expect(reply.author?.name == "Robert")
    #expect(reply.post === first)
    #expect(runs["c1.author"] == 1)
    #expect(runs["c1.post"] == 1)

    let newBob = user("bob", "Bob II")
    store.users.update(newBob)
    #expect(reply.author === newBob)
    #expect(runs["c1.author"] == 2)

    store.users.delete("bob")
    #expect(reply.author == nil)
    #expect(runs["c1.author"] == 3)
    #expect(runs["c1.post"] == 1)
  }

  @Test func followersAndFollowerCount() {
    let alice = user("alice", "Alice")
    let bob = user("bob", "Bob")
    store.users.add([alice, bob])
    #expect(alice.followerCount == 0)

    alice.followerIds = [bob.id]
    #expect(ids(alice.followers) == ["bob"])
    #expect(alice.followerCount == 1)
    #expect(runs["alice.followers"] == 2)
    #expect(runs["alice.followerCount"] == 2)

    alice.followerIds.insert("carol")  // not in the store yet
    #expect(ids(alice.followers) == ["bob"])
    #expect(alice.followerCount == 1)
    #expect(runs["alice.followers"] == 3)

    store.users.add(user("carol", "Carol"))  // the absent ID arrives
    #expect(Set(ids(alice.followers)) == ["bob", "carol"])
    #expect(alice.followerCount == 2)
    #expect(runs["alice.followers"] == 4)
    #expect(runs["alice.followerCount"] == 4)

    store.users.add(user("dave", "Dave"))  // not a follower
    bob.name = "Robert"
    #expect(alice.followerCount == 2)
    #expect(runs["alice.followers"] == 4)
    #expect(runs["alice.followerCount"] == 4)

    store.users.delete("bob")
    #expect(ids(alice.followers) == ["carol"])
    #expect(alice.followerCount == 1)
    #expect(runs["alice.followers"] == 5)
  }

  @Test func feedAndTrendingOrder() {
    let (alice, bob, carol, dave) = (
      user("alice", "Alice"), user("bob", "Bob"), user("carol", "Carol"), user("dave", "Dave")
    )
    store.users.add([alice, bob, carol, dave])
    alice.followerIds = [bob.id, carol.id]
    store.posts.add([
      post("b1", by: bob, likes: 5), post("b2", by: bob, likes: 15),
      post("c1", by: carol, likes: 12), post("a1", by: alice, likes: 30),
      post("d1", by: dave, likes: 11),
    ])
    let feed = Social.FeedViewModel(store: store, currentUserId: alice.id)
    #expect(ids(feed.feedPosts) == ["b2", "c1", "b1"])
    #expect(ids(feed.trendingPosts) == ["a1", "b2", "c1", "d1"])

    store.posts.get(by: "b1")!.likes = 20  // in the feed and now trending
    #expect(ids(feed.feedPosts) == ["b1", "b2", "c1"])
    #expect(ids(feed.trendingPosts) == ["a1", "b1", "b2", "c1", "d1"])
    #expect(runs["feedPosts"] == 2)
    #expect(runs["trendingPosts"] == 2)

    // Likes of posts outside the feed are never read by it.
    store.posts.get(by: "d1")!.likes = 40
    store.posts.get(by: "a1")!.likes = 31
    #expect(ids(feed.feedPosts) == ["b1", "b2", "c1"])
    #expect(ids(feed.trendingPosts) == ["d1", "a1", "b1", "b2", "c1"])
    #expect(runs["feedPosts"] == 2)
    #expect(runs["trendingPosts"] == 3)

    alice.followerIds.insert(dave.id)
    #expect(ids(feed.feedPosts) == ["d1", "b1", "b2", "c1"])
    #expect(runs["feedPosts"] == 3)
    #expect(runs["trendingPosts"] == 3)

    // Trending keeps the top 20.
    store.posts.add((0..<25).map { post("x\($0)", by: carol, likes: 50 + $0) })
    #expect(ids(feed.trendingPosts) == (5..<25).reversed().map { "x\($0)" })
    #expect(feed.feedPosts.count == 4 + 25)
    #expect(runs["feedPosts"] == 4)
    #expect(runs["trendingPosts"] == 4)
  }

  @Test func selectedAndRelatedPosts() {
    let alice = user("alice", "Alice")
    let bob = user("bob", "Bob")
    store.users.add([alice, bob])
    store.posts.add([
      post("a1", by: alice), post("a2", by: alice), post("b1", by: bob), post("a3", by: alice),
    ])
    let detail = Social.PostDetailViewModel(store: store)
    #expect(detail.selectedPost == nil)
    #expect(detail.relatedPosts.isEmpty)

    detail.selectedPostId = "a1"
    #expect(detail.selectedPost?.typedID == "a1")
    #expect(ids(detail.relatedPosts) == ["a2", "a3"])
    #expect(runs["selectedPost"] == 2)
    #expect(runs["relatedPosts"] == 2)

    store.posts.add(post("a4", by: alice))
    #expect(ids(detail.relatedPosts) == ["a2", "a3", "a4"])
    #expect(runs["selectedPost"] == 2)  // it looks up one ID
    #expect(runs["relatedPosts"] == 3)

    store.posts.get(by: "a2")!.likes += 1
    #expect(ids(detail.relatedPosts) == ["a2", "a3", "a4"])
    #expect(runs["relatedPosts"] == 3)

    detail.selectedPostId = "b1"
    #expect(detail.relatedPosts.isEmpty)

    detail.selectedPostId = "a1"
    store.posts.delete("a1")
    #expect(detail.selectedPost == nil)
    #expect(detail.relatedPosts.isEmpty)
  }

  @Test func likingOnePostRunsOnlyWhatReadsLikes() {
    let alice = user("alice", "Alice")
    let bob = user("bob", "Bob")
    store.users.add([alice, bob])
    alice.followerIds = [bob.id]
    let liked = post("b1", by: bob, likes: 1)
    store.posts.add([liked, post("b2", by: bob, likes: 5), post("a1", by: alice)])
    store.comments.add(comment("c1", on: liked, by: alice))
    let feed = Social.FeedViewModel(store: store, currentUserId: alice.id)
    let detail = Social.PostDetailViewModel(store: store)
    detail.selectedPostId = "b1"
    let everything = {
      _ = (alice.posts, bob.posts, alice.followerCount, liked.author, liked.commentCount)
      _ = (feed.feedPosts, feed.trendingPosts, detail.relatedPosts)
    }
    everything()
    let before = [
      "alice.posts", "bob.posts", "alice.followers", "alice.followerCount", "b1.author",
      "b1.comments", "b1.commentCount", "feedPosts", "trendingPosts", "selectedPost",
      "relatedPosts",
    ].map { ($0, runs[$0]) }

    liked.likes = 11
    everything()
    let ranAgain = before.filter { runs[$0.0] != $0.1 }.map(\.0)
    #expect(ranAgain == ["feedPosts", "trendingPosts"])
    #expect(ids(feed.trendingPosts) == ["b1"])
  }
}
