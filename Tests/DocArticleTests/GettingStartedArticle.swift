// Keeps the code of StateGraph.docc/GettingStarted.md compiling and checked.
import StateGraph
import Testing

enum GettingStartedArticle {
  final class CounterModel {
    @GraphStored var count: Int = 0
    @GraphComputed var isEven: Bool

    init() {
      self.$isEven = .init { [$count] _ in
        $count.wrappedValue % 2 == 0
      }
    }
  }
}

@Suite struct GettingStartedArticleTests {
  typealias CounterModel = GettingStartedArticle.CounterModel

  @Test func reactToChanges() {
    let lines = printedLines {
      let counter = CounterModel()
      let subscription = withGraphTracking {
        counter.$isEven.onChange { isEven in
          print("even: \(isEven)")
        }
      }
      counter.count += 1
      counter.count += 1
      subscription.cancel()
      counter.count += 1
    }
    #expect(lines == ["even: true", "even: false", "even: true"])
  }
}
