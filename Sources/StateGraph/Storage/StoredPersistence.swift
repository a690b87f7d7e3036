import Foundation

/// Ties one persisted ``Stored`` node to the ``StorageSlot`` of its place: encodes what the
/// node is given, decodes what the slot hands over, and falls back to the declared value
/// when the place holds nothing or something unreadable. `@unchecked Sendable`: `owner` is
/// guarded by `ownerLock`, `sequence` as its comment says, the rest is immutable.
@usableFromInline
final class StoredPersistence<Value>: StorageSlotMember, @unchecked Sendable {
  private let slot: StorageSlot
  private let codec: StorageCodec<Value>
  /// The declared value: what the node reads while the place holds nothing usable.
  private let defaultValue: Value
  /// Set once by ``bind(to:)``, while other threads may already deliver: hence the lock.
  private weak var owner: Stored<Value>?
  private let ownerLock = ValueLock()
  /// The slot's change number of the value the owner holds. Until ``bind(to:)`` only this
  /// object's creator touches it; afterwards only the owner's value lock, inside
  /// ``Stored/replace(with:isCurrent:undo:joinsBatch:)``.
  private var sequence: UInt64

  var valueType: Any.Type { Value.self }

  private init(slot: StorageSlot, codec: StorageCodec<Value>, defaultValue: Value) {
    self.slot = slot
    self.codec = codec
    self.defaultValue = defaultValue
    self.sequence = 0
  }

  deinit { slot.leave(ObjectIdentifier(self)) }

  /// Joins `backing`'s slot; returns the persistence and the value the node starts with.
  /// Call ``bind(to:)`` once the node exists.
  static func join(
    _ backing: any StorageBacking, codec: StorageCodec<Value>, defaultValue: Value
  ) -> (StoredPersistence, initialValue: Value) {
    let persistence = StoredPersistence(
      slot: .shared(for: backing), codec: codec, defaultValue: defaultValue)
    let (stored, sequence) = persistence.slot.join(persistence)
    persistence.sequence = sequence  // not shared yet: the node does not exist
    return (persistence, persistence.value(of: stored))
  }

  /// Starts delivering to `owner`, first whatever the slot received since ``join``.
  func bind(to owner: Stored<Value>) {
    let joinedAt = sequence  // read before deliveries can reach `advance`
    ownerLock.withLock { self.owner = owner }
    slot.catchUp(self, since: joinedAt)
  }

  /// The node's write: saves it, then gives it to the node and to the other nodes on the
  /// place. The place's previous content comes back if the enclosing batch rolls back.
  @usableFromInline
  func write(_ newValue: Value, to owner: Stored<Value>) {
    let stored: PropertyListValue?
    do {
      stored = try codec.encode(newValue)
    } catch {
      StorageDiagnostic.report(.unencodable, slot.backing.description, Value.self, "\(error)")
      owner.replace(with: newValue)
      return
    }
    let (sequence, previous) = slot.write(stored, from: self)
    // Setting an optional to nil removes the key, which then reads as the declared value.
    let value = stored == nil ? defaultValue : newValue
    owner.replace(
      with: value, isCurrent: { self.advance(to: sequence) },
      undo: { [slot] in slot.write(previous, from: nil) })
  }

  func receive(_ stored: PropertyListValue?, sequence: UInt64, isWrite: Bool) {
    guard let owner = ownerLock.withLock({ owner }) else { return }
    owner.replace(
      with: value(of: stored), isCurrent: { self.advance(to: sequence) }, joinsBatch: isWrite)
  }

  /// Under the owner's value lock: whether change `newer` is newer than the value held.
  private func advance(to newer: UInt64) -> Bool {
    guard newer > sequence else { return false }
    sequence = newer
    return true
  }

  /// What the node reads for `stored`: the decoded value, or the declared value when the
  /// place holds nothing or something this type cannot read (reported, left untouched).
  private func value(of stored: PropertyListValue?) -> Value {
    guard let stored else { return defaultValue }
    do {
      return try codec.decode(stored)
    } catch {
      switch error {
      case .typeMismatch(let found):
        StorageDiagnostic.report(.typeMismatch, slot.backing.description, Value.self, "\(found)")
      case .undecodable(let detail):
        StorageDiagnostic.report(.undecodable, slot.backing.description, Value.self, detail)
      }
      return defaultValue
    }
  }
}
