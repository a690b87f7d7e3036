import StateGraphCore

extension Stored {
  /// The value, read without recording a dependency or telling Observation: for
  /// bookkeeping that must not make the running computation depend on the node.
  /// Inside a staged transaction this thread sees its staged value.
  package var untrackedValue: Value {
    if let staging = Staging.current, staging.root.stagedCount > 0,
      let staged = staging.stagedValue(of: self)
    {
      return staged
    }
    // Copied out under the value lock, like every read; no user code runs under it.
    return lock.withLock { value }
  }

  /// ``untrackedValue`` for the setter a `@GraphStored` property's `didSet` expands to,
  /// which reads the value it replaces as a plain property's observer reads its storage.
  /// Not API: the macro's expansion is its one caller.
  public var _untrackedValue: Value { untrackedValue }

  /// Whether a computation or observer of the graph depends on this node (its last run
  /// read it). A dependency recorded after this returns is not seen: callers read nodes
  /// and ask this under one lock of their own.
  package var hasGraphDependents: Bool {
    var count = 0
    return sg_node_dependents(node, nil, 0, &count) == 0 && count > 0
  }
}
