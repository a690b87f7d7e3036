/// What a node keeps for the rollbacks of batches: a computed node's is made by the
/// first batch that changes its value (referenced from after the value in the cached
/// value's block, guarded by the box's lock); a stored node's is its side record
/// (``StoredSideRecord``, guarded by the node's lock). A node without one has no open
/// write whose revision it could name, so its revisions start here.
@usableFromInline
class Revisions<Value> {
  /// Names the node's value (see ``OpenWrites``): taken from `lastRevision` by every
  /// change, given back by a rollback's restore.
  @usableFromInline @exclusivity(unchecked) final var revision: UInt64 = 0
  /// The highest revision ever handed out.
  @usableFromInline @exclusivity(unchecked) final var lastRevision: UInt64 = 0
  /// What rollbacks of batches still open put back.
  @usableFromInline @exclusivity(unchecked) final var openWrites = OpenWrites<Value>()

  @usableFromInline init() {}

  /// A change stored: the value gets the next revision. Returns the one it replaced.
  @inlinable @discardableResult
  final func advanceRevision() -> UInt64 {
    let before = revision
    lastRevision &+= 1
    revision = lastRevision
    return before
  }
}
