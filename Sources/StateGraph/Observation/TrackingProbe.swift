import Observation

/// Whether a read outside computations runs inside Observation tracking
/// (`withObservationTracking`, a SwiftUI body, `Observations`), so that a node nobody
/// tracks has no registrar: no allocations at its first read, no notice at its changes.
///
/// Observation has no "is tracking" query, but a tracked read records its key path in a
/// set, which hashes it. The probe reads its thread's spare registrar under a key path
/// whose subscript argument counts the hashes made on the reading thread: a count that
/// moved says the read was recorded. The node being read then keeps that spare registrar,
/// as its own or, when another thread's tracked read gave it one meanwhile, beside it, so
/// no registrar a tracking recorded stays with the thread, and the tracking's entry for it
/// lives as long as the node: a registrar's end cancels what was registered with it. The
/// probe's key is never announced; the node's own key, which the same read records next,
/// is.
///
/// A moved count proves tracking. An unmoved one is trusted once a probe inside a
/// `withObservationTracking` of its own, made at the first unmoved answer (so outside
/// tracking), saw the count move; had it not, every read would be taken as tracked, as
/// if there were no probe.
@usableFromInline
enum TrackingProbe {
  /// Whether this thread's read runs inside Observation tracking; when it does, the node
  /// being read keeps ``takeRegistrar()``.
  @usableFromInline
  static func isTracking() -> Bool {
    ThreadState.withCurrent { state in
      let spare = state.spareRegistrar ?? makeSpare(for: state)
      let hashes = state.probeKeyHashes
      spare._withUnsafeGuaranteedRef { $0.probe(state.probeSubject) }
      if state.probeKeyHashes != hashes { return true }
      return !(state.probeIsTrusted ?? trust(for: state))
    }
  }

  /// The registrar the last probe of this thread read, for the node that read it. The
  /// thread makes a new spare at its next probe.
  @usableFromInline
  static func takeRegistrar() -> NodeObservation {
    ThreadState.withCurrent { state in
      guard let spare = state.spareRegistrar else { return NodeObservation() }
      state.spareRegistrar = nil
      return spare.takeRetainedValue()
    }
  }

  private static func makeSpare(for state: ThreadState) -> Unmanaged<NodeObservation> {
    let made = Unmanaged.passRetained(NodeObservation())
    state.spareRegistrar = made
    return made
  }

  private static func trust(for state: ThreadState) -> Bool {
    let trusted = isTrusted
    state.probeIsTrusted = trusted
    return trusted
  }

  /// Whether an unmoved count means "not tracking": Observation hashed the probe's key
  /// at a read inside a tracking of its own (counted at the read: installing the
  /// tracking afterwards hashes it too). Its registrar cancels that tracking when it goes.
  static let isTrusted: Bool = ThreadState.withCurrent { state in
    let registrar = ObservationRegistrar()
    var moved = false
    withObservationTracking {
      let hashes = state.probeKeyHashes
      registrar.accessProbeKey()
      moved = state.probeKeyHashes != hashes
    } onChange: {}
    return moved
  }
}

/// The root of the probe's key path (Observation needs an `Observable` one), and the key
/// path: one object, so that a probe goes through one once-token.
final class ProbeSubject: Observable, Sendable {
  nonisolated(unsafe) let path: KeyPath<ProbeSubject, Int> = \.[probe: ProbeKey()]  // immutable

  subscript(probe key: ProbeKey) -> Int { 0 }

  static let shared = ProbeSubject()
}

extension ObservationRegistrar {
  /// A read under the probe's key, which Observation hashes only when tracking.
  func accessProbeKey(of subject: Unmanaged<ProbeSubject> = .passUnretained(.shared)) {
    subject._withUnsafeGuaranteedRef { access($0, keyPath: $0.path) }
  }
}

/// The probe key path's argument: hashing it counts one hash on this thread. All probe
/// keys are equal, so every probe reads one key.
struct ProbeKey: Hashable, Sendable {
  static func == (lhs: ProbeKey, rhs: ProbeKey) -> Bool { true }

  func hash(into hasher: inout Hasher) {
    // Observation may hash the key on any thread (registering, cancelling): only a
    // thread that probes has a count to move, and only its own probe reads it.
    _ = ThreadState.withExisting { state -> Void? in
      state.probeKeyHashes &+= 1
      return nil
    }
    hasher.combine(0)
  }
}
