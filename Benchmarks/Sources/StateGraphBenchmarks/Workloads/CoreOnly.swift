import StateGraphCore

// The C core on its own, driven through its public C API with C callbacks
// (no Swift wrapper objects, locks, registrars or closures): a chain whose
// values live in a plain buffer. Comparing it with the same chain through
// Stored/Computed tells how much of an update's cost is the core's and how
// much the wrapper's.

/// One computed node's context: where its input's value is, and its own.
private struct CoreCell {
  var input: OpaquePointer?  // the node it reads
  var inputValue: UnsafeMutablePointer<Int>
  var value: Int
  var runs: UnsafeMutablePointer<Int>
}

private let coreCompute: sg_callback = { _, context in
  let cell = context!.assumingMemoryBound(to: CoreCell.self)
  _ = sg_read_unchecked(cell.pointee.input)
  cell.pointee.runs.pointee += 1
  let new = cell.pointee.inputValue.pointee + 1
  if new == cell.pointee.value { return Int32(SG_UNCHANGED) }
  cell.pointee.value = new
  return Int32(SG_CHANGED)
}

/// A chain head → c1 → … → c_length in its own C graph.
final class CoreChain: Subject {
  private let graph: OpaquePointer
  private let head: OpaquePointer
  private let headValue = UnsafeMutablePointer<Int>.allocate(capacity: 1)
  private let runs = UnsafeMutablePointer<Int>.allocate(capacity: 1)
  private var nodes: [OpaquePointer] = []
  private let cells: UnsafeMutablePointer<CoreCell>
  private let length: Int
  private var checksum = 0
  var tally: Tally { Tally(checksum: checksum, recomputes: runs.pointee) }

  init(length: Int) {
    self.length = length
    graph = sg_graph_new()
    var created: OpaquePointer?
    sg_stored_new(graph, nil, &created)
    head = created!
    headValue.initialize(to: 0)
    runs.initialize(to: 0)
    cells = .allocate(capacity: length)
    var input = head
    var inputValue = headValue
    let valueOffset = MemoryLayout<CoreCell>.offset(of: \CoreCell.value)!
    for k in 0..<length {
      (cells + k).initialize(
        to: CoreCell(input: input, inputValue: inputValue, value: Int.min, runs: runs))
      sg_computed_new(graph, nil, coreCompute, UnsafeMutableRawPointer(cells + k), nil, &created)
      nodes.append(created!)
      input = created!
      inputValue = (UnsafeMutableRawPointer(cells + k) + valueOffset)
        .assumingMemoryBound(to: Int.self)
    }
    _ = sg_read_unchecked(nodes[length - 1])
    runs.pointee = 0
  }

  deinit {
    for node in nodes.reversed() { sg_node_destroy(node) }
    sg_node_destroy(head)
    sg_graph_free(graph)
    cells.deallocate()
    headValue.deallocate()
    runs.deallocate()
  }

  func run(_ ops: Range<Int>) {
    let tail = nodes[length - 1]
    let tailValue = cells + (length - 1)
    for i in ops {
      let value = i + 1
      if headValue.pointee != value {
        headValue.pointee = value
        sg_changed_unchecked(head)
      }
      _ = sg_read_unchecked(tail)
      checksum &+= tailValue.pointee.value
    }
  }
}
