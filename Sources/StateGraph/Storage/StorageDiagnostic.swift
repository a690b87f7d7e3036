import Foundation

/// A problem with a persisted value that the program survives: the property falls back to
/// its default, or keeps the value it had.
///
/// Stored data is never rewritten because of a diagnostic: a key holding a value of
/// another type keeps it until the program assigns the property.
///
/// By default every diagnostic is printed to standard error. Install a ``handler`` to send
/// them elsewhere (a logger, a test):
///
/// ```swift
/// StorageDiagnostic.handler = { diagnostic in
///   logger.warning("\(diagnostic.description)")
/// }
/// ```
public struct StorageDiagnostic: Sendable, CustomStringConvertible {
  /// What went wrong.
  public enum Kind: Sendable, Hashable {
    /// The store holds a value of another type; the property reads its default.
    case typeMismatch
    /// The store holds data the property's type cannot decode; the property reads its default.
    case undecodable
    /// The value could not be encoded, so it was not taken: the property keeps the value it
    /// had, and the store what it held.
    case unencodable
    /// The backing failed to load; the property reads its default.
    case loadFailed
    /// The backing failed to save; the nodes keep the new value until the backing reports
    /// a change.
    case saveFailed
  }

  /// What went wrong.
  public let kind: Kind
  /// Where the value lives, as the backing describes itself: `UserDefaults key "theme"`.
  public let location: String
  /// The property's value type: `Theme`, `Dictionary<String, Int>`.
  public let valueType: String
  /// What was found or what failed: `an integer (3)`, or an error's description.
  public let detail: String

  public var description: String {
    switch kind {
    case .typeMismatch:
      "StateGraph: \(location) holds \(detail), which does not read as \(valueType); "
        + "the property reads its default and the stored value is left as it is"
    case .undecodable:
      "StateGraph: \(location) holds data that does not decode as \(valueType) (\(detail)); "
        + "the property reads its default and the stored data is left as it is"
    case .unencodable:
      "StateGraph: a \(valueType) for \(location) could not be encoded (\(detail)); "
        + "the property keeps its value and the stored value is left as it is"
    case .loadFailed:
      "StateGraph: loading \(location) as \(valueType) failed (\(detail)); "
        + "the property reads its default"
    case .saveFailed:
      "StateGraph: saving \(location) as \(valueType) failed (\(detail)); "
        + "the nodes keep the new value until the backing reports a change"
    }
  }
}

extension StorageDiagnostic {
  private static let currentHandler = Locked<@Sendable (StorageDiagnostic) -> Void>(
    printToStandardError)

  /// Receives every diagnostic, on the thread that found the problem. The default prints
  /// ``description`` to standard error. Thread safety: may be set from any thread.
  public static var handler: @Sendable (StorageDiagnostic) -> Void {
    get { currentHandler.withLock { $0 } }
    set { currentHandler.withLock { $0 = newValue } }
  }

  /// The default ``handler``.
  public static let printToStandardError: @Sendable (StorageDiagnostic) -> Void = { diagnostic in
    FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8))
  }

  static func report(_ kind: Kind, _ location: String, _ valueType: Any.Type, _ detail: String) {
    handler(
      StorageDiagnostic(
        kind: kind, location: location, valueType: String(describing: valueType), detail: detail))
  }
}
