import StateGraphCore

// Reading computed nodes inside a staged transaction (see Staging.swift and
// docs/core-protocol.md, "Staged transactions").
//
// Evaluating against the staged state runs a node's closure directly, and its reads of
// other computed nodes evaluate those the same way: a chain of computeds recurses as deep
// as it is long. Past `depthBound` levels the recursion stops growing. A node that ran
// before is evaluated after its sources: the chain below it is taken from the edges of its
// last run and evaluated from the bottom up, each closure then finding its source's value
// ready. A node that never ran is first read through the core, which runs deep first
// evaluations on its own stack segments (CSources/StateGraphCore/stack.c) and leaves the
// edges to follow.

/// A computed node's closure, run against a transaction's staged state, with its value
/// type hidden: the evaluation from the bottom of a chain meets the nodes as the core
/// lists them.
protocol StagedEvaluable: AnyObject {
  func evaluateStaged() -> Any
}

extension TypedComputeBox: StagedEvaluable {
  func evaluateStaged() -> Any { body(GraphContext()) }
}

extension Staging {
  /// How deep evaluation against staged state recurses before it evaluates sources first.
  /// A level is a handful of frames plus the closure's own: far below a small thread stack.
  static let depthBound = 64

  /// `computed`'s value as this thread sees it. A node that ran before and that no staged
  /// node reaches is read through the core, in the committed state (its cache may be
  /// brought up to date, which is the committed value); should that run meet a staged node
  /// (a dependency new since its last run), or should the node be reached, its closure runs
  /// directly, untracked, so that nothing of the staged state stays in the shared graph;
  /// kept until the next write.
  @usableFromInline
  func read<Value>(_ computed: Computed<Value>) -> Value {
    let root = self.root
    if root.coreReads == 0 {
      if root.isAffected(computed.node) { return evaluate(computed, root) }
      // A node that never ran has no edges yet to tell: it runs directly, leaving nothing;
      // deep in an evaluation it is read through the core first (see above).
      let hasRun = computed.box._withUnsafeGuaranteedRef { box in
        box.lock.withLock { box.hasValue }
      }
      if !hasRun && root.evaluating.count < Self.depthBound { return evaluate(computed, root) }
    } else if root.isAffected(computed.node) {
      // A run through the core that reads a node the staged state reaches: its result is
      // not the staged view.
      root.stagedMetInCoreRead += 1
    }
    let met = root.stagedMetInCoreRead
    root.coreReads += 1
    let status = sg_read_unchecked(computed.node)
    root.coreReads -= 1
    if status != 0 { GraphCore.fail(status, computed.node) }
    if root.coreReads > 0 || root.stagedMetInCoreRead == met {
      return computed.box._withUnsafeGuaranteedRef { $0.current }
    }
    // The run made edges from a staged node: the next reads must know them.
    root.markAffectedAgain()
    return evaluate(computed, root)
  }

  /// Marks again from every staged node, following edges made since.
  func markAffectedAgain() {
    affected.removeAll(keepingCapacity: true)
    var level: Staging? = self
    while let current = level {
      for write in current.writes {
        markAffected(from: OpaquePointer(bitPattern: write.address)!)
      }
      level = current.parent
    }
  }

  private func evaluate<Value>(_ computed: Computed<Value>, _ root: Staging) -> Value {
    let id = computed.box._withUnsafeGuaranteedRef { ObjectIdentifier($0) }
    if let value = root.computedValues[id] { return value as! Value }
    if root.evaluating.count >= Self.depthBound { root.evaluateSourcesFirst(of: computed.node) }
    return root.evaluate(id, computed.node) {
      computed.box._withUnsafeGuaranteedRef { $0.body(GraphContext()) }
    }
  }

  /// Runs `body`, the closure of the node whose box is `id`, untracked, and keeps its value
  /// until the next write. Called on the root.
  private func evaluate<Value>(
    _ id: ObjectIdentifier, _ node: OpaquePointer, _ body: () -> Value
  ) -> Value {
    if evaluating.contains(id) {
      var description = sg_node_description()
      let name = sg_node_describe(node, &description) == 0 ? String(cString: description.name) : ""
      fatalError(
        "StateGraph: dependency cycle: '\(name)' reads itself, evaluated against "
          + "a transaction's staged writes")
    }
    evaluating.append(id)
    sg_untracked_begin()
    let value = body()
    _ = sg_untracked_end()
    evaluating.removeLast()
    computedValues[id] = value
    return value
  }

  /// Evaluates, from the bottom up, the chain of computed nodes that `node`'s evaluation is
  /// about to read: from each node, along the edges of its last run, its first source the
  /// staged state reaches, while the sources read before that one are unchanged (so the
  /// closure, run again, reads that source too). Called on the root.
  private func evaluateSourcesFirst(of node: OpaquePointer) {
    // The upstream part of the graph, with each computed node's box, in one step.
    let boxes = SnapshotBoxes()
    var snapshot: OpaquePointer?
    let status = withExtendedLifetime(boxes) {
      sg_snapshot_around(
        node, SG_UPSTREAM, SnapshotBoxes.visit, Unmanaged.passUnretained(boxes).toOpaque(),
        &snapshot)
    }
    guard status == 0, let snapshot else { return }
    defer { sg_snapshot_free(snapshot) }
    var count = 0
    guard let entries = sg_snapshot_entries(snapshot, &count),
      var current = (0..<count).first(where: { entries[$0].node == node })
    else { return }
    var staged: Set<UInt> = []
    var level: Staging? = self
    while let writes = level?.writes {
      for write in writes { staged.insert(write.address) }
      level = level?.parent
    }
    var chain: [(box: ComputeBox, node: OpaquePointer)] = []
    walk: while true {
      let entry = entries[current]
      for index in (0..<entry.source_count).map({ entry.sources[$0] }) {
        let source = entries[index]
        let address = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(source.node)))
        if source.kind == SG_STORED {
          if staged.contains(address) { break walk }  // the closure may take another way
          continue
        }
        guard let sourceNode = source.node, isAffected(sourceNode) else { continue }
        guard let box = boxes.found[index], computedValues[ObjectIdentifier(box)] == nil,
          !evaluating.contains(ObjectIdentifier(box))
        else { break walk }
        chain.append((box, sourceNode))
        current = index
        continue walk
      }
      break
    }
    for (box, node) in chain.reversed() {
      let id = ObjectIdentifier(box)
      guard computedValues[id] == nil, let evaluable = box as? any StagedEvaluable else { continue }
      _ = evaluate(id, node) { evaluable.evaluateStaged() }
    }
  }
}

/// The computed nodes' boxes of a snapshot, by entry, collected by its visitor: a box
/// is retained by its C node until the node's destroy callback, which waits for visitors,
/// so taking a reference there is safe.
private final class SnapshotBoxes {
  var found: [Int: ComputeBox] = [:]

  static let visit: sg_snapshot_visitor = { snapshot, index, context, user in
    guard let snapshot, let context, let user else { return }
    var count = 0
    guard let entries = sg_snapshot_entries(snapshot, &count), index < count,
      entries[index].kind == SG_COMPUTED
    else { return }
    let boxes = Unmanaged<SnapshotBoxes>.fromOpaque(user).takeUnretainedValue()
    boxes.found[index] = Unmanaged<ComputeBox>.fromOpaque(context).takeUnretainedValue()
  }
}
