// Keeps the code of StateGraph.docc/PerformanceAndTheCCore.md compiling and checked.
import StateGraph
import Testing

final class TaxedCart {
  @GraphStored var net: Double = 100
  @GraphStored var taxRate: Double = 0.2
  @GraphComputed var tax: Double
  @GraphComputed var total: Double

  init() {
    self.$tax = .init { [$net, $taxRate] _ in $net.wrappedValue * $taxRate.wrappedValue }
    self.$total = .init { [$net, $tax] _ in $net.wrappedValue + $tax.wrappedValue }
  }
}

// Tracing and snapshots see the one process-wide graph: run these one at a time.
@Suite(.serialized) struct PerformanceArticleTests {
  @Test func traceAndSnapshot() {
    let lines = printedLines {
      let cart = TaxedCart()
      nameGraphNodes(of: cart)
      print(cart.total)
      let trace = withGraphTrace {
        cart.taxRate = 0.1
        _ = cart.total
      }
      print(trace)

      let snapshot = GraphSnapshot.capture(.upstreamAndDownstream(of: cart.$total))
      print(snapshot)
      let dotText = snapshot.dot()
      #expect(dotText.contains("digraph"))
      #expect(snapshot.node(named: "TaxedCart.tax") != nil)
    }
    #expect(lines.first == "120.0")
    #expect(lines[1].contains("TaxedCart.tax: recomputed, changed"))
  }
}
