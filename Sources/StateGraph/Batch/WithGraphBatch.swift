import StateGraphCore

/// Groups writes into one change for observers.
///
/// Writes inside a batch apply at once: every thread sees each as it is made, and
/// `onDidSet`/`didSet` run at each. Observers run once, after the outermost batch ends, and
/// see only its final state. When `body` throws, every write made inside it is undone and
/// nobody is notified; the error is rethrown.
///
/// ```swift
/// withGraphBatch {
///   cart.items.append(item)
///   cart.taxRate = 0.1
/// }  // onChange handlers run here, once each
/// ```
///
/// Batches nest: an inner batch that throws undoes only its own writes. A rollback undoes
/// only the batch's own writes: a node another thread wrote after the batch keeps that
/// value. A plain node made inside the batch keeps the values written to it, whatever
/// rolls back: only nodes that existed when the batch began are restored. Backed nodes
/// save each write at once, and a rollback saves the previous value back. For writes that
/// no other thread may see before they are all made, use ``withGraphTransaction(_:)``;
/// inside one, a batch is staged like a nested transaction.
///
/// Thread safety: a batch belongs to the thread that runs it; other threads'
/// writes are not held back by it.
/// - Parameter body: the writes to group.
/// - Returns: what `body` returns.
@discardableResult
public func withGraphBatch<R, Failure: Error>(_ body: () throws(Failure) -> R) throws(Failure) -> R {
  guard let batch = Transaction.open() else { return try Staging.run(body) }
  let result: R
  do {
    result = try body()
  } catch {
    batch._withUnsafeGuaranteedRef { $0.close(rollingBack: true) }
    throw error
  }
  batch._withUnsafeGuaranteedRef { $0.close(rollingBack: false) }
  return result
}

extension Transaction {
  /// Opens a batch on this thread with the log of its nesting level; nil inside a staged
  /// transaction, which stages the batch instead. Unmanaged: the thread's state holds
  /// its logs. Not generic, so a batch pays no metadata look-up, and no reference is
  /// counted.
  static func open() -> Unmanaged<Transaction>? {
    ThreadState.withCurrent { state in
      if state.staging != nil { return nil }
      if state.openTransactions == state.transactions.count {
        state.transactions.append(Transaction())
      }
      let transaction = state.transactions.withUnsafeBufferPointer {
        Unmanaged.passUnretained($0[state.openTransactions])
      }
      state.openTransactions += 1
      transaction._withUnsafeGuaranteedRef {
        $0.parent = state.transaction
        state.transaction = $0
      }
      sg_batch_begin()
      return transaction
    }
  }

  /// Ends the batch ``open()`` opened: undoes its writes when its body threw; hands
  /// them and its completions to the enclosing batch, or commits them and runs the
  /// completions when it is the outermost; then waits, empty, for the next batch of its
  /// nesting level.
  func close(rollingBack: Bool) {
    if rollingBack {
      rollback()
      sawRollback = true
    }
    ThreadState.withCurrent { $0.transaction = parent }
    if let parent {
      if !rollingBack { merge(into: parent) }
      passCompletions(to: parent)
      GraphCore.wrote(sg_batch_end())
    } else {
      GraphCore.wrote(sg_batch_end())  // graph observers first, as for a single write
      if !rollingBack { commit() }
      runCompletions()
    }
    reset()
    ThreadState.withCurrent { state in
      state.openTransactions -= 1
      state.leftUndoIfOutermost()
    }
  }
}
