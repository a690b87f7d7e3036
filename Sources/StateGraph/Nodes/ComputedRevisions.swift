/// What a computed node keeps for the rollbacks of batches, made by the first batch that
/// changes its value; referenced from after the value in the cached value's block, and
/// guarded by the box's lock. A node without one has no open write whose revision it
/// could name, so its revisions start here.
@usableFromInline
final class ComputedRevisions<Value> {
  /// Names the cached value (see ``OpenWrites``): taken from `lastRevision` by every
  /// change, given back by a rollback's restore.
  @usableFromInline @exclusivity(unchecked) var revision: UInt64 = 0
  @usableFromInline @exclusivity(unchecked) var lastRevision: UInt64 = 0
  @usableFromInline @exclusivity(unchecked) var openWrites = OpenWrites<Value>()

  @usableFromInline init() {}

  /// A change stored: the value gets the next revision. Returns the one it replaced.
  @inlinable @discardableResult
  func advanceRevision() -> UInt64 {
    let before = revision
    lastRevision &+= 1
    revision = lastRevision
    return before
  }
}
