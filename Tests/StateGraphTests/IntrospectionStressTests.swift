import Foundation
import StateGraph
import Testing

/// Snapshots read each node's value while other threads create and drop
/// nodes: a stored node's value lives in the Swift object that its deinit
/// frees right after destroying the C node, so this is where a snapshot
/// could touch freed memory. Run under the thread sanitizer by `make test`
/// (filter: Stress).
@Suite("Introspection Stress")
struct IntrospectionStressTests {
  @Test func snapshotsWhileNodesComeAndGo() async {
    // Finite loops: tasks on the cooperative pool must not wait for each other.
    await withTaskGroup(of: Void.self) { group in
      for worker in 0..<2 {
        group.addTask {
          for round in 0..<2_000 {
            let source = Stored(name: "source", wrappedValue: [worker, round])
            let derived = Computed(name: "derived") { _ in source.wrappedValue.count }
            #expect(derived.wrappedValue == 2)
          }
        }
      }
      group.addTask {
        for _ in 0..<200 {
          // A node created or destroyed during the capture may have no value.
          for node in GraphSnapshot.capture().nodes where node.name == "source" {
            if let value = node.value { #expect(value.hasPrefix("[")) }
          }
        }
      }
    }
  }
}
