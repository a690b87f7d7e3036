import Observation

/// A node's `ObservationRegistrar` behind a reference, for nodes that make it
/// on first use. An optional reference costs a null check; an optional
/// registrar (a type of another, resilient module) would cost calls into its
/// value witnesses at every copy and test, on every read.
///
/// `@unchecked Sendable`: `kept` is written only under the owning node's value lock.
@usableFromInline
final class NodeObservation: @unchecked Sendable {
  private let registrar = ObservationRegistrar()
  /// Registrars that a probe read for this node on a thread that found the node observed
  /// already (another thread's first tracked read came first): each holds an entry of a
  /// tracking that read the node, which goes when the node goes. A chain: races only.
  private var kept: NodeObservation?

  @usableFromInline init() {}

  /// Keeps `probed` as long as this registrar. Under the owning node's value lock.
  func keep(_ probed: NodeObservation) {
    probed.kept = kept
    kept = probed
  }

  /// Registers a read of the node with the running observation, if any.
  @usableFromInline
  func access() { registrar.accessValue() }

  /// A read under the probe's key, which Observation hashes only when tracking
  /// (TrackingProbe.swift).
  func probe(_ subject: Unmanaged<ProbeSubject>) { registrar.accessProbeKey(of: subject) }

  /// The node is about to change: `withObservationTracking`'s onChange runs
  /// now, in the writing thread, and still reads the old value (the timing
  /// of an `@Observable` class's setter).
  @usableFromInline
  func willSet() { registrar.valueWillChange() }

  /// The node has changed: the counterpart of ``willSet()``.
  @usableFromInline
  func didSet() { registrar.valueDidSet() }

  /// Both at once, for a change already stored (a committed batch).
  @usableFromInline
  func didChange() { registrar.valueDidChange() }
}
