/// swift-state-graph's name for ``withGraphBatch(_:)``, with a typed error: groups the
/// writes of `body` into one change, and undoes them all when it throws.
///
/// ```swift
/// enum CheckoutError: Error { case emptyCart }
///
/// try withGraphTransaction { () throws(CheckoutError) in
///   cart.items = []
///   cart.total = 0
///   if cart.isEmpty { throw .emptyCart }  // both writes are undone, no observer runs
/// }
/// ```
///
/// Writes take effect when made, and `willSet`/`didSet`/`onDidSet` run at each one;
/// observers run once when the outermost transaction ends. Upstream stages values until
/// the transaction commits and runs those hooks then, so code that relies on hooks seeing
/// the committed state of the whole transaction behaves differently here. Nested
/// transactions undo only their own writes when they throw.
/// - Parameter body: the writes to group.
/// - Returns: what `body` returns.
@discardableResult
public func withGraphTransaction<Result, Failure: Error>(
  _ body: () throws(Failure) -> Result
) throws(Failure) -> Result {
  do {
    return try withGraphBatch(body)
  } catch {
    throw error as! Failure  // only `body` throws, and it throws `Failure`
  }
}
