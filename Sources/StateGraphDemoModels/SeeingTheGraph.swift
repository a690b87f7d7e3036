import Foundation
import StateGraph

/// The shopping cart's graph made visible: the trace of a write that
/// propagates, the trace of one that is cut off by equality, a snapshot
/// taken while a write is under way, and its picture (DOT, rendered to PNG
/// when Graphviz is installed; the README's docs/graph.png is this picture).
func seeingTheGraph() {
  let cart = ShoppingCartViewModel()
  nameGraphNodes(of: cart)  // "ShoppingCartViewModel.total" rather than "total" (or nothing)
  let subscription = withGraphTracking {
    cart.$total.onChange { _ in }
  }
  cart.items = [
    CartItem(name: "Book", price: 20, quantity: 2), CartItem(name: "Pen", price: 2.5),
  ]

  say("what `cart.taxRate = 0.10` did:")
  show(withGraphTrace { cart.taxRate = 0.10 })
  say("what `cart.items.reverse()` did — same subtotal, so it stops there:")
  show(withGraphTrace { cart.items.reverse() })

  // Taken in the middle of a batch: the write has marked, nothing has run.
  var snapshot: GraphSnapshot!
  withGraphBatch {
    cart.taxRate = 0.12
    snapshot = GraphSnapshot.capture(.upstreamAndDownstream(of: cart.$total))
  }
  say("the graph inside a batch, right after `cart.taxRate = 0.12`:")
  show(snapshot)
  let files = writePicture(snapshot.dot())
  say("DOT written to \(files.dot)")
  if let png = files.png {
    say("rendered with Graphviz: \(png)")
  } else {
    say("install Graphviz to render it: dot -Tpng \(files.dot) -o graph.png")
  }
  subscription.cancel()
}

private func show(_ text: some CustomStringConvertible) {
  for line in text.description.split(separator: "\n") { say("  " + line) }
}

/// Writes the DOT next to the build products (.build/, else the temporary
/// directory) and renders a PNG beside it when `dot` is on the PATH.
private func writePicture(_ dot: String) -> (dot: String, png: String?) {
  let files = FileManager.default
  let buildDirectory = files.currentDirectoryPath + "/.build"
  let directory = files.fileExists(atPath: buildDirectory) ? buildDirectory : NSTemporaryDirectory()
  let dotPath = (directory as NSString).appendingPathComponent("demo-graph.dot")
  let pngPath = (directory as NSString).appendingPathComponent("demo-graph.png")
  do {
    try dot.write(toFile: dotPath, atomically: true, encoding: .utf8)
  } catch {
    return ("(not written: \(error))", nil)
  }
  let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
  guard
    let graphviz = searchPath.split(separator: ":").map({ "\($0)/dot" })
      .first(where: files.isExecutableFile(atPath:))
  else { return (dotPath, nil) }
  let render = Process()
  render.executableURL = URL(fileURLWithPath: graphviz)
  render.arguments = ["-Tpng", "-Gdpi=110", dotPath, "-o", pngPath]
  guard (try? render.run()) != nil else { return (dotPath, nil) }
  render.waitUntilExit()
  return (dotPath, render.terminationStatus == 0 ? pngPath : nil)
}
