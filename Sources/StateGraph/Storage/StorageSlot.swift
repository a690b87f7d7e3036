import Foundation

/// A node's side of a ``StorageSlot``: receives the values the slot's other members wrote
/// and the changes found in the backing.
protocol StorageSlotMember: AnyObject, Sendable {
  /// The node's value type, for diagnostics.
  var valueType: Any.Type { get }

  /// Takes `stored` (nil: the place holds nothing) as change number `sequence` of the slot.
  /// `isWrite` tells a write of this program, made on the calling thread, from a change
  /// found in the backing.
  func receive(_ stored: PropertyListValue?, sequence: UInt64, isWrite: Bool)

  /// Takes what a rollback put back in the place, as change number `sequence`, unless the
  /// member's node is itself still to be rolled back by the batch rolling back on this
  /// thread (its own rollback restores it, and its own undo may restore the place further).
  func receiveRestored(_ stored: PropertyListValue?, sequence: UInt64)
}

/// Where the content of a place comes from, for rollbacks: the change whose content the
/// place holds (`effective`, a change number), and the run of consecutive writes of one
/// thread, through any of the place's nodes, that ends with it. A rollback of a batch
/// undoes a write while the place holds that write or a later write of the same run: the
/// later writes of the batch's own thread are inside the batch, so they are undone too.
/// It never undoes past a change of another thread or from outside, unless a rollback
/// undid that change first.
struct StorageLineage: Sendable {
  struct Run: Sendable, Equatable {
    let thread: ObjectIdentifier
    let start: UInt64
  }

  var effective: UInt64 = 0
  var run: Run?
}

/// One persisted place (a UserDefaults key, a file), shared by every node backed by it:
/// the one place that orders saves, loads, rollbacks and changes made from outside, for
/// `@GraphStored(backed:)` and `@GraphUserDefault` alike.
///
/// The slot knows what the place holds, numbers every change, saves writes, and finds
/// changes made from outside. Nodes take a change only when its number is higher than the
/// one they hold, so racing writers end with every node on the value saved last. A
/// rollback restores the place only while it holds the write being undone (or a later
/// write of the same thread: see ``StorageLineage``), and hands the restored content to
/// the nodes as a new change.
///
/// No lock of the slot is held while a backing loads, saves or watches, or while a node
/// takes a value: that is where user code (custom backings, `UserDefaults` observers,
/// graph observers) runs. Saves are made by one thread at a time, each time with the
/// latest value: a writer that finds a save under way leaves its value to that thread.
final class StorageSlot: Sendable {
  let backing: any StorageBacking

  // The weak references below live in small classes, not structs: Swift 6.3 on Linux
  // crashes loading a weak reference from a struct stored in these dictionaries.
  private final class Member {
    weak var member: (any StorageSlotMember)?
    init(_ member: any StorageSlotMember) { self.member = member }
  }

  private struct State {
    /// What the place holds, or will hold once the save under way is done.
    var stored: PropertyListValue?
    /// Bumped on every change of `stored`.
    var sequence: UInt64 = 0
    /// Where `stored` comes from (see ``StorageLineage``).
    var lineage = StorageLineage()
    var members: [ObjectIdentifier: Member] = [:]
    var isSaving = false
    var hasUnsavedChange = false
    /// A reload was skipped because a save was under way; the saver reloads when done.
    var wantsReload = false
    var isWatching = false
    var watch: StorageWatch?
    /// The last load failure reported: a place that keeps failing is reported once.
    var loadFailure: String?

    var liveMembers: [any StorageSlotMember] { members.values.compactMap(\.member) }
  }

  private let state = Locked(State())

  private init(backing: any StorageBacking) {
    self.backing = backing
  }

  deinit {
    let id = ObjectIdentifier(self)
    Self.registry.withLock { slots in
      // A slot made for the same place after this one died stays.
      if slots[AnyHashable(backing)]?.id == id { slots[AnyHashable(backing)] = nil }
    }
  }

  // MARK: Sharing

  private final class WeakSlot {
    weak var slot: StorageSlot?
    /// Compared in `deinit`, where loading `slot` would retain a slot under the lock.
    let id: ObjectIdentifier

    init(_ slot: StorageSlot) {
      self.slot = slot
      self.id = ObjectIdentifier(slot)
    }
  }

  private static let registry = Locked<[AnyHashable: WeakSlot]>([:])

  /// The slot of `backing`'s place: equal backings share one.
  static func shared(for backing: any StorageBacking) -> StorageSlot {
    registry.withLock { slots in
      let key = AnyHashable(backing)
      if let slot = slots[key]?.slot { return slot }
      let slot = StorageSlot(backing: backing)
      slots[key] = WeakSlot(slot)
      return slot
    }
  }

  // MARK: Members

  /// Adds a member and returns what the place holds now, with its change number. The
  /// place is reloaded first: it may have changed while no node watched it.
  func join(_ member: any StorageSlotMember) -> (stored: PropertyListValue?, sequence: UInt64) {
    startWatching()
    reload(reportingAs: member.valueType)
    return state.withLock { state in
      state.members[ObjectIdentifier(member)] = Member(member)
      return (state.stored, state.sequence)
    }
  }

  /// Hands the current value to `member` if the slot changed since change `sequence`: a
  /// member that joined before its node existed calls this once the node does.
  func catchUp(_ member: any StorageSlotMember, since sequence: UInt64) {
    let current = state.withLock { state in
      state.sequence == sequence ? nil : (state.stored, state.sequence)
    }
    if let (stored, sequence) = current {
      member.receive(stored, sequence: sequence, isWrite: false)
    }
  }

  func leave(_ member: ObjectIdentifier) {
    state.withLock { _ = $0.members.removeValue(forKey: member) }
  }

  // MARK: Writing

  /// Saves `stored` (nil removes what the place holds) and hands it to the members other
  /// than `writer`, which writes on the thread whose state is `thread`. Returns the change
  /// number, and what the place held before with where it came from: what a rollback of
  /// this write puts back.
  func write(
    _ stored: PropertyListValue?, from writer: any StorageSlotMember, thread: ObjectIdentifier
  ) -> (sequence: UInt64, previous: PropertyListValue?, lineage: StorageLineage) {
    let saved = save(stored, from: writer, thread: thread)
    for member in saved.others { member.receive(stored, sequence: saved.sequence, isWrite: true) }
    return (saved.sequence, saved.previous, saved.lineage)
  }

  /// What ``save(_:from:thread:)`` did: the change number, what a rollback puts back, and
  /// the other members, which have not been told yet.
  struct Saved {
    let sequence: UInt64
    let previous: PropertyListValue?
    let lineage: StorageLineage
    let others: [any StorageSlotMember]
  }

  /// ``write(_:from:thread:)`` without telling the other members: the caller hands them
  /// `stored` (as change `sequence`, `isWrite: true`) once its own node took it. A
  /// transaction's commit saves first, with no lock held, and gives the writer's node its
  /// value together with the transaction's other writes.
  func save(
    _ stored: PropertyListValue?, from writer: any StorageSlotMember, thread: ObjectIdentifier
  ) -> Saved {
    let (sequence, previous, lineage, others, mustSave) = state.withLock { state in
      let previous = state.stored
      let lineage = state.lineage
      state.stored = stored
      state.sequence += 1
      let continues = lineage.run?.thread == thread
      state.lineage = StorageLineage(
        effective: state.sequence,
        run: .init(thread: thread, start: continues ? lineage.run!.start : state.sequence))
      state.hasUnsavedChange = true
      let mustSave = !state.isSaving
      state.isSaving = true
      let others = state.liveMembers.filter { $0 !== writer }
      return (state.sequence, previous, lineage, others, mustSave)
    }
    if mustSave { saveUntilCurrent() }
    return Saved(sequence: sequence, previous: previous, lineage: lineage, others: others)
  }

  /// A rollback's first step: undoes write `undone`, made on the thread whose state is
  /// `thread`, if the place still holds it or a later write of its run (see
  /// ``StorageLineage``). `previous` and `lineage` are what ``write(_:from:thread:)``
  /// returned for it. Returns the new change number, and whether the caller must save;
  /// then it must call ``finishRestore(_:sequence:mustSave:)``. Returns nil, changing
  /// nothing, when a later change of someone else came since: it stays.
  func restore(
    _ previous: PropertyListValue?, lineage: StorageLineage, undoing undone: UInt64,
    thread: ObjectIdentifier
  ) -> (sequence: UInt64, mustSave: Bool)? {
    state.withLock { state in
      let current = state.lineage
      let isOwnRun = current.run.map { $0.thread == thread && $0.start <= undone } ?? false
      guard current.effective == undone || isOwnRun else { return nil }
      state.stored = previous
      state.sequence += 1
      state.lineage = lineage
      state.hasUnsavedChange = true
      let mustSave = !state.isSaving
      state.isSaving = true
      return (state.sequence, mustSave)
    }
  }

  /// A rollback's second step, with no lock held: saves the restored content and hands it
  /// to every member that is not still to be rolled back (see
  /// ``StorageSlotMember/receiveRestored(_:sequence:)``), as a change that no batch owns.
  func finishRestore(_ previous: PropertyListValue?, sequence: UInt64, mustSave: Bool) {
    if mustSave { saveUntilCurrent() }
    let members = state.withLock { $0.liveMembers }
    for member in members { member.receiveRestored(previous, sequence: sequence) }
  }

  /// Saves the latest value until no newer one is waiting. Only one thread at a time runs
  /// this; a value written meanwhile is saved by the next turn of the loop.
  private func saveUntilCurrent() {
    enum Turn {
      case save(PropertyListValue?)
      case done(reload: Bool)
    }
    while true {
      let turn = state.withLock { state -> Turn in
        guard state.hasUnsavedChange else {
          state.isSaving = false
          defer { state.wantsReload = false }
          return .done(reload: state.wantsReload)
        }
        state.hasUnsavedChange = false
        return .save(state.stored)
      }
      switch turn {
      case .save(let value):
        // Marks the thread as inside a save: a change notification posted from inside it
        // (Apple's UserDefaults posts one on the saving thread) is followed later, not there.
        let thread = ThreadState.current
        let wasSaving = thread.isSavingUserDefault
        thread.isSavingUserDefault = true
        defer { thread.isSavingUserDefault = wasSaving }
        do {
          try backing.save(value)
        } catch {
          StorageDiagnostic.report(.saveFailed, backing.description, memberType, "\(error)")
        }
      case .done(let wantsReload):
        if wantsReload { reload() }
        return
      }
    }
  }

  // MARK: Following the place

  /// Loads what the place holds and, when it differs from what the slot knew, hands it to
  /// every member. Skipped while a save is under way (the saver reloads afterwards), and
  /// dropped if a write happened while loading: the write is newer.
  func reload(reportingAs valueType: Any.Type? = nil) {
    let before: UInt64? = state.withLock { state in
      if state.isSaving {
        state.wantsReload = true
        return nil
      }
      return state.sequence
    }
    guard let before else { return }
    let loaded: PropertyListValue?
    do {
      loaded = try backing.load()
    } catch {
      let failure = "\(error)"
      let isNew = state.withLock { state in
        defer { state.loadFailure = failure }
        return state.loadFailure != failure
      }
      if isNew {
        StorageDiagnostic.report(.loadFailed, backing.description, valueType ?? memberType, failure)
      }
      return
    }
    let change = state.withLock { state -> (UInt64, [any StorageSlotMember])? in
      state.loadFailure = nil
      guard state.sequence == before, !state.isSaving, loaded != state.stored else { return nil }
      state.stored = loaded
      state.sequence += 1
      state.lineage = StorageLineage(effective: state.sequence, run: nil)  // from outside
      return (state.sequence, state.liveMembers)
    }
    guard let (sequence, members) = change else { return }
    for member in members { member.receive(loaded, sequence: sequence, isWrite: false) }
  }

  private func startWatching() {
    let start = state.withLock { state in
      defer { state.isWatching = true }
      return !state.isWatching
    }
    guard start else { return }
    let watch = backing.watch { [weak self] in self?.reload() }
    state.withLock { $0.watch = watch }
  }

  /// A type to name in diagnostics that concern the place rather than one node.
  private var memberType: Any.Type {
    state.withLock { $0.liveMembers.first?.valueType } ?? Any.self
  }
}
