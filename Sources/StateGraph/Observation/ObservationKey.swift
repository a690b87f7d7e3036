import Observation

/// The one key path every node reports to its own `ObservationRegistrar`.
///
/// A key path rooted in a generic class (`\Stored<Value>.wrappedValue`) is
/// built by the runtime at every use, allocating; a non-generic one is built
/// once. Registrars are per node, so one key tells observers all they need.
final class ObservationKey: Observable, Sendable {
  var value: Int { 0 }

  static let shared = ObservationKey()
  nonisolated(unsafe) static let path: KeyPath<ObservationKey, Int> = \ObservationKey.value  // immutable
}

extension ObservationRegistrar {
  /// Registers a read of the node owning this registrar.
  @usableFromInline
  func accessValue() { access(ObservationKey.shared, keyPath: ObservationKey.path) }

  /// Tells observers that the node owning this registrar is about to change.
  func valueWillChange() { willSet(ObservationKey.shared, keyPath: ObservationKey.path) }

  /// Tells observers that the node owning this registrar has changed.
  func valueDidSet() { didSet(ObservationKey.shared, keyPath: ObservationKey.path) }

  /// Both, for a change that is already stored (a committed batch, or a
  /// computed node the core reports as possibly changed).
  func valueDidChange() {
    willSet(ObservationKey.shared, keyPath: ObservationKey.path)
    didSet(ObservationKey.shared, keyPath: ObservationKey.path)
  }
}
