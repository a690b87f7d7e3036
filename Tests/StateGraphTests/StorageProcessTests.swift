import Foundation
import StateGraph
import Testing

/// Persistence across a real second process: an exit test runs its body in a child
/// process of this test binary.
@Suite("Storage: across processes")
struct StorageProcessTests {
  @Test func aSecondProcessReadsWhatThisOneSavedAndViceVersa() async {
    let suite = ScratchSuite()
    defer { suite.remove() }
    let greeting = Stored(wrappedValue: "unset", backed: suite.backing("greeting"))
    let answer = Stored(wrappedValue: 0, backed: suite.backing("answer"))
    greeting.wrappedValue = "from the parent"

    await #expect(processExitsWith: .success) { [suite = suite.name as String] in
      let greeting = Stored(
        wrappedValue: "unset", backed: .userDefaults(suite: suite, key: "greeting"))
      guard greeting.wrappedValue == "from the parent" else {
        print("the child read \(greeting.wrappedValue)")
        exit(EXIT_FAILURE)
      }
      let answer = Stored(wrappedValue: 0, backed: .userDefaults(suite: suite, key: "answer"))
      answer.wrappedValue = 42  // saved before the child exits
    }

    #if canImport(Darwin)
      // A node joining the key reloads it, and hands the child's write to `answer`.
      #expect(Stored(wrappedValue: 0, backed: suite.backing("answer")).wrappedValue == 42)
    #endif
    // On Linux the node that was already there follows the other process by itself.
    #expect(await eventually { answer.wrappedValue == 42 })
  }

  @Test func aValueSurvivesTheProcessThatSavedIt() async {
    let suite = ScratchSuite()
    defer { suite.remove() }

    await #expect(processExitsWith: .success) { [suite = suite.name as String] in
      let layout = Stored(
        wrappedValue: Layout(name: "list", columns: 1),
        backed: .userDefaults(suite: suite, key: "layout"))
      layout.wrappedValue = Layout(name: "grid", columns: 4)
      let tags = Stored(wrappedValue: [String](), backed: .userDefaults(suite: suite, key: "tags"))
      tags.wrappedValue = ["swift", "graph"]
      exit(EXIT_SUCCESS)  // no clean-up code runs: the writes were saved at once
    }

    let layout = Stored(
      wrappedValue: Layout(name: "list", columns: 1), backed: suite.backing("layout"))
    #expect(layout.wrappedValue == Layout(name: "grid", columns: 4))
    #expect(
      Stored(wrappedValue: [String](), backed: suite.backing("tags")).wrappedValue == [
        "swift", "graph",
      ])
  }
}
