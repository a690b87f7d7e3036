// Keeps the code of StateGraph.docc/TransactionsAndBatches.md compiling and checked.
import Foundation
import StateGraph
import Testing

@Suite struct TransactionsArticleTests {
  @Test func batchesNotifyOnce() {
    let lines = printedLines {
      let items = Stored(wrappedValue: [String]())
      let selection = Stored(wrappedValue: -1)
      let summary = Computed { _ in "\(items.wrappedValue.count) items, selected \(selection.wrappedValue)" }
      let subscription = withGraphTracking {
        summary.onChange { print($0) }
      }
      withGraphBatch {
        items.wrappedValue = ["a", "b"]
        selection.wrappedValue = 1
      }
      withExtendedLifetime(subscription) {}
    }
    #expect(lines == ["0 items, selected -1", "2 items, selected 1"])
  }

  @Test func transactionsApplyTogetherAndRollBack() {
    let lines = printedLines {
      let balanceA = Stored(wrappedValue: 100)
      let balanceB = Stored(wrappedValue: 0)
      let total = Computed { _ in balanceA.wrappedValue + balanceB.wrappedValue }

      withGraphTransaction {
        balanceA.wrappedValue -= 30
        print("inside: \(balanceA.wrappedValue), total \(total.wrappedValue)")
        balanceB.wrappedValue += 30
      }
      print("after: \(balanceA.wrappedValue) + \(balanceB.wrappedValue) = \(total.wrappedValue)")

      enum TransferError: Error { case insufficientFunds }

      do {
        try withGraphTransaction { () throws(TransferError) in
          balanceA.wrappedValue -= 500
          if balanceA.wrappedValue < 0 { throw .insufficientFunds }
          balanceB.wrappedValue += 500
        }
      } catch {
        print("rolled back (\(error)): \(balanceA.wrappedValue)")
      }
    }
    #expect(
      lines == [
        "inside: 70, total 70", "after: 70 + 30 = 100", "rolled back (insufficientFunds): 70",
      ])
  }

  @Test func aModelMadeInsideKeepsWhatItsInitGaveIt() {
    enum TransferError: Error { case insufficientFunds }

    let lines = printedLines {
      final class Draft {
        @GraphStored var title: String = ""
        init(title: String) { self.title = title }
      }

      var draft: Draft?
      try? withGraphTransaction { () throws(TransferError) in
        draft = Draft(title: "Report")
        throw .insufficientFunds
      }
      print(draft!.title)  // "Report"
    }
    #expect(lines == ["Report"])
  }
}
