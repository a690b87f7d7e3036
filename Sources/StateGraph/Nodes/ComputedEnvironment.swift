/// Names a value that every computation can read through
/// ``GraphContext/environment``, keyed by a type, as in swift-state-graph.
///
/// ```swift
/// final class Database: ComputedEnvironmentKey, Sendable {
///   typealias Value = Database
///   let posts = EntityStore<Post>()
/// }
///
/// extension ComputedEnvironmentValues {
///   var database: Database? {
///     get { self[Database.self] }
///     set { self[Database.self] = newValue }
///   }
/// }
///
/// StateGraphGlobal.computedEnvironmentValues.withLock { $0.database = database }
/// let count = Computed { context in context.environment.database?.posts.count ?? 0 }
/// ```
public protocol ComputedEnvironmentKey {
  /// The type of the value stored under this key.
  associatedtype Value
}

/// Values stored under ``ComputedEnvironmentKey`` types: one process-wide set, in
/// ``StateGraphGlobal/computedEnvironmentValues``, read by computations through
/// ``GraphContext/environment``.
///
/// The values are not graph nodes: changing one does not make a computation that read it
/// run again. Put nodes or stores in it, whose own reads are tracked, rather than plain
/// values that change. The values are handed to computations on any thread, so they
/// should be `Sendable`.
public struct ComputedEnvironmentValues: @unchecked Sendable {
  private var values: [ObjectIdentifier: Any] = [:]

  /// An empty set of values.
  public init() {}

  /// The value stored under `key`, or nil; setting nil removes it.
  public subscript<Key: ComputedEnvironmentKey>(key: Key.Type) -> Key.Value? {
    get { values[ObjectIdentifier(key)] as? Key.Value }
    set { values[ObjectIdentifier(key)] = newValue }
  }
}

/// Process-wide settings of the graph.
public enum StateGraphGlobal {
  /// The values every computation reads through ``GraphContext/environment``.
  ///
  /// ```swift
  /// StateGraphGlobal.computedEnvironmentValues.withLock { values in
  ///   values.database = database
  /// }
  /// ```
  public static let computedEnvironmentValues = ComputedEnvironmentLock()
}

/// The lock around ``StateGraphGlobal/computedEnvironmentValues``.
///
/// Thread safety: any thread may call ``withLock(_:)``; the body runs with the lock
/// held, so it must not read a computation that reads the environment.
public final class ComputedEnvironmentLock: Sendable {
  private let values = Locked(ComputedEnvironmentValues())

  init() {}

  /// Runs `body` with the values, which it may change, and returns what it returns.
  public func withLock<Result>(_ body: (inout ComputedEnvironmentValues) throws -> Result) rethrows -> Result {
    try values.withLock(body)
  }
}

extension GraphContext {
  /// The process-wide ``ComputedEnvironmentValues``, as they are now.
  ///
  /// ```swift
  /// self.$posts = .init { context in
  ///   context.environment.database?.posts.filter { $0.authorID == id } ?? []
  /// }
  /// ```
  ///
  /// Reading the environment is not a dependency: what the computation reads from the
  /// values (nodes, stores) is.
  public var environment: ComputedEnvironmentValues {
    StateGraphGlobal.computedEnvironmentValues.withLock { $0 }
  }
}
