// Nodes made inside a batch or transaction are outside its undo. A rollback restores the
// nodes that existed when it began; a node made inside did not, and taking its values back
// to the ones it was made with would leave the object that made it half initialised (a
// model whose `init` assigned its properties, made by a computation read inside a
// transaction that then throws). So a plain stored node made while a batch or transaction
// is open on this thread takes this thread's writes at once until the outermost one ends:
// not staged, not logged, and kept whatever rolls back. Backed nodes are not exempt: their
// key is shared with nodes made before.

extension ThreadState {
  /// Whether a batch or transaction is open on this thread.
  var isInsideUndo: Bool { openTransactions > 0 || staging != nil }

  /// After the outermost batch or transaction of this thread ended.
  func leftUndoIfOutermost() {
    if !isInsideUndo, !madeInsideUndo.isEmpty { madeInsideUndo = [] }
  }
}

extension Stored {
  /// Called by `init`: a plain node made inside a batch or transaction of this thread.
  func noteIfMadeInsideUndo() {
    _ = ThreadState.withExisting { state -> Void? in
      if state.isInsideUndo { state.madeInsideUndo.insert(ObjectIdentifier(self)) }
      return nil
    }
  }

  /// Whether this thread's writes to the node skip the open batch's or transaction's undo.
  @usableFromInline
  var isMadeInsideUndo: Bool {
    ThreadState.withExisting { state in
      state.madeInsideUndo.isEmpty ? nil : state.madeInsideUndo.contains(ObjectIdentifier(self))
    } ?? false
  }
}
