// The StateGraph demo: the examples of upstream swift-state-graph's README (all but the
// SwiftUI and UIKit views), printing what changes as it changes.
// Run it with `make demo`.

import StateGraphDemoModels

print("StateGraph demo — reactive state with a C graph core\n")
for (title, run) in chapters {
  print("━━ \(title) " + String(repeating: "━", count: max(0, 60 - title.count)))
  await run()
  print("")
}
