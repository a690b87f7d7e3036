import MallocCounter
import StateGraph
import StateGraphCore

// Where a node's bytes go (`--node-memory`): the heap allocations creating
// one node makes, each with its requested size and the malloc chunk it takes,
// and the C slot. A probe for the memory rows' all-in figure, not a workload:
// nothing is timed.

/// glibc's chunk for a request: the size plus an 8-byte header, rounded up to
/// 16, at least 32.
private func chunk(_ size: Int) -> Int { max(32, (size + 8 + 15) & ~15) }

private func describe(_ what: String, _ build: () -> AnyObject) -> AnyObject {
  var sizes = [Int](repeating: 0, count: 64)
  var pointers = [UnsafeMutableRawPointer?](repeating: nil, count: 64)
  var slotsBefore = 0
  var reserved = 0
  sg_node_memory(&slotsBefore, &reserved)
  var count = 0
  let made: AnyObject = sizes.withUnsafeMutableBufferPointer { sizes in
    pointers.withUnsafeMutableBufferPointer { pointers in
      mc_record(sizes.baseAddress, pointers.baseAddress, sizes.count)
      mc_start()
      let made = build()
      _ = mc_stop()
      count = Int(mc_recorded())
      mc_record(nil, nil, 0)
      return made
    }
  }
  var slotsAfter = 0
  sg_node_memory(&slotsAfter, &reserved)
  let kept = (0..<count).filter { pointers[$0] != nil }
  let chunks = kept.reduce(0) { $0 + chunk(sizes[$1]) }
  let slotBytes = slotsAfter - slotsBefore
  print("\(what): \(chunks + slotBytes) B kept")
  for index in 0..<count {
    let size = sizes[index]
    print(
      "  malloc(\(size)) → \(chunk(size)) B chunk"
        + (pointers[index] == nil ? " (freed before the node was made: not counted)" : ""))
  }
  if slotBytes != 0 { print("  C node slot: \(slotBytes) B") }
  return made
}

func nodeMemoryReport() {
  guard Heap.isCounting else {
    print("node memory: needs the malloc interposer (glibc)")
    return
  }
  // Warm up lazily made state (registry, thread state, per-type caches).
  do {
    let stored = Stored(wrappedValue: 1)
    blackHole(Computed { _ in stored.wrappedValue }.wrappedValue)
  }
  let stored = describe("Stored<Int>") { Stored(wrappedValue: 7) }
  let holder = Counter()
  let computed = describe("Computed<Int>, evaluated") {
    let node = Computed { _ in holder.count + 1 }
    _ = node.wrappedValue
    return node
  }
  blackHole((stored, computed))
}
