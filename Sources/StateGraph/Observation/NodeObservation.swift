import Observation

/// A node's `ObservationRegistrar` behind a reference, for nodes that make it
/// on first use. An optional reference costs a null check; an optional
/// registrar (a type of another, resilient module) would cost calls into its
/// value witnesses at every copy and test, on every read.
@usableFromInline
final class NodeObservation: Sendable {
  private let registrar = ObservationRegistrar()

  @usableFromInline init() {}

  /// Registers a read of the node with the running observation, if any.
  @usableFromInline
  func access() { registrar.accessValue() }

  /// Tells observers that the node changed.
  @usableFromInline
  func didChange() { registrar.valueDidChange() }
}
