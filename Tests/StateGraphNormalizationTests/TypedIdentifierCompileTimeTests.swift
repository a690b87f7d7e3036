import Foundation
import Testing

/// IDs of different entity types must not mix: that is a compile error, so
/// it is checked by running the type checker on a small program built
/// against the TypedIdentifier sources. The control program (the same
/// without the offending line) must pass, so a failure can only come from
/// the mix-up.
@Suite("TypedIdentifier type safety")
struct TypedIdentifierCompileTimeTests {
  static let entities = """
    final class User: TypedIdentifiable {
      typealias TypedIdentifierRawValue = String
      let typedID: TypedID
      init(id: String) { self.typedID = .init(id) }
    }
    final class Post: TypedIdentifiable {
      typealias TypedIdentifierRawValue = String
      let typedID: TypedID
      let authorId: User.TypedID
      init(id: String, authorId: User.TypedID) {
        self.typedID = .init(id)
        self.authorId = authorId
      }
    }
    let user = User(id: "user123")
    let post = Post(id: "post1", authorId: user.id)
    let postID: Post.TypedID = post.id
    func author(of id: User.TypedID) -> String { id.rawValue }
    """

  @Test(.timeLimit(.minutes(2)))
  func theControlProgramTypeChecks() throws {
    let result = try typeCheck(
      Self.entities + "\n_ = author(of: post.authorId)\n_ = post.authorId == user.typedID\n")
    #expect(result.status == 0, "\(result.output)")
  }

  @Test(.timeLimit(.minutes(2)))
  func comparingAUserIDWithAPostIDDoesNotCompile() throws {
    let result = try typeCheck(Self.entities + "\n_ = post.authorId == post.typedID\n")
    #expect(result.status != 0)
    #expect(result.output.contains("error:"), "\(result.output)")
    #expect(result.output.contains("'User.TypedID'"), "\(result.output)")
    #expect(result.output.contains("'Post.TypedID'"), "\(result.output)")
  }

  @Test(.timeLimit(.minutes(2)))
  func passingAPostIDForAUserIDDoesNotCompile() throws {
    let result = try typeCheck(Self.entities + "\n_ = author(of: postID)\n")
    #expect(result.status != 0)
    #expect(
      result.output.contains("cannot convert value of type 'Post.TypedID'")
        || result.output.contains("cannot convert value of type 'TypedIdentifier<Post>'"),
      "\(result.output)")
  }

  /// Runs `swiftc -typecheck` on the TypedIdentifier sources plus `program`.
  private func typeCheck(_ program: String) throws -> (status: Int32, output: String) {
    let packageRoot = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let sourceDirectory = packageRoot.appendingPathComponent("Sources/TypedIdentifier")
    let sources = try FileManager.default.contentsOfDirectory(atPath: sourceDirectory.path)
      .filter { $0.hasSuffix(".swift") }
      .map { sourceDirectory.appendingPathComponent($0).path }
    let scratch = FileManager.default.temporaryDirectory
      .appendingPathComponent("typed-identifier-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let main = scratch.appendingPathComponent("main.swift")
    try program.write(to: main, atomically: true, encoding: .utf8)

    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["swiftc", "-typecheck", "-module-name", "Check"] + sources + [main.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
  }
}
