/// What a ``Stored`` keeps only once something needs it: an observer, a batch, an
/// `onDidSet` handler or a backing. Most nodes never get one, so a node costs its value,
/// its C handle, its lock and two pointers; a write checks one pointer for all of this.
///
/// Made under the node's lock and never replaced; every field is read and written under
/// that lock (`persistence` is set before the node is shared).
@usableFromInline
final class StoredSideRecord<Value>: Revisions<Value> {
  /// Made by the first read Observation tracks (``TrackingProbe``): until then no
  /// observer can know the node, and a change skips it (a registrar's willSet/didSet
  /// cost ~250 instructions even when empty).
  @usableFromInline @exclusivity(unchecked) var observation: NodeObservation?
  /// `batchDidCommit`, made by the first change in a batch where `Value` is known (once
  /// per node, so a batch allocates nothing in the steady state) and handed to the
  /// transaction: it runs the commit specialised (see `Transaction.record`).
  @usableFromInline @exclusivity(unchecked) var commitHook: CommitHook?
  /// Set by ``Stored/onDidSet(_:)``.
  @usableFromInline @exclusivity(unchecked) var didSetHandler: ((Value, Value) -> Void)?
  /// Where the value persists (see Storage/ and `init(name:wrappedValue:backed:)`).
  @usableFromInline @exclusivity(unchecked) var persistence: StoredPersistence<Value>?

  @usableFromInline override init() {}
}
