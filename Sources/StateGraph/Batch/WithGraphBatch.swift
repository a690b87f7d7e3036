import StateGraphCore

/// Groups writes into one transaction.
///
/// Observers run once, after the outermost batch ends, and see only its
/// final state. When `body` throws, every write made inside it is undone and
/// nobody is notified; the error is rethrown.
///
/// ```swift
/// withGraphBatch {
///   cart.items.append(item)
///   cart.taxRate = 0.1
/// }  // onChange handlers run here, once each
/// ```
///
/// Batches nest: an inner batch that throws undoes only its own writes.
/// Thread safety: a batch belongs to the thread that runs it; other threads'
/// writes are not held back by it.
@discardableResult
public func withGraphBatch<R>(_ body: () throws -> R) rethrows -> R {
  let state = ThreadState.current
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
