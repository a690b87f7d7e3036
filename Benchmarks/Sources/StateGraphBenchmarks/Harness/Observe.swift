import StateGraph

/// An effect ("→ effect" in the kairo and cellx shapes) on StateGraph: an
/// `onChange` handler, registered inside `withGraphTracking`. Registered from
/// a nonisolated context, so it runs synchronously on the writing thread,
/// after the write or the outermost batch. The handler also runs once at
/// registration (with the current value); callers reset their counters after
/// setting up.
func observe<Node: GraphNode>(
  _ node: Node, _ handler: @escaping @Sendable (Node.Value) -> Void
) -> StateGraphSubscription where Node.Value: Equatable {
  withGraphTracking {
    node.onChange(handler)
  }
}
