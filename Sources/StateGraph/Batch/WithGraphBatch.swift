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
/// value. Backed nodes save each write at once, and a rollback saves the previous value
/// back. For writes that no other thread may see before they are all made, use
/// ``withGraphTransaction(_:)``; inside one, a batch is staged like a nested transaction.
///
/// Thread safety: a batch belongs to the thread that runs it; other threads'
/// writes are not held back by it.
/// - Parameter body: the writes to group.
/// - Returns: what `body` returns.
@discardableResult
public func withGraphBatch<R, Failure: Error>(_ body: () throws(Failure) -> R) throws(Failure) -> R {
  let state = ThreadState.current
  if state.staging != nil { return try Staging.run(body) }
  let parent = state.transaction
  let transaction = state.spareTransactions.popLast() ?? Transaction()
  defer {
    transaction.reset()
    state.spareTransactions.append(transaction)
  }
  state.transaction = transaction
  sg_batch_begin()
  do {
    let result = try body()
    state.transaction = parent
    if let parent {
      transaction.merge(into: parent)
      transaction.passCompletions(to: parent)
      GraphCore.wrote(sg_batch_end())
    } else {
      GraphCore.wrote(sg_batch_end())  // graph observers first, as for a single write
      transaction.commit()
      transaction.runCompletions()
    }
    return result
  } catch {
    transaction.rollback()
    transaction.sawRollback = true
    state.transaction = parent
    if let parent {
      transaction.passCompletions(to: parent)
      GraphCore.wrote(sg_batch_end())
    } else {
      GraphCore.wrote(sg_batch_end())
      transaction.runCompletions()
    }
    throw error
  }
}
