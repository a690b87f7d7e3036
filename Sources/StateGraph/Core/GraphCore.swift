import StateGraphCore

/// The process-wide graph every Swift node lives in, and the few helpers that
/// turn C status codes into Swift behaviour.
@usableFromInline
enum GraphCore {
  /// One graph for the whole process: nodes of different models may depend on
  /// each other freely. Never freed.
  nonisolated(unsafe) static let graph: OpaquePointer = sg_graph_new()!

  /// Number of live nodes, for leak tests.
  static var liveNodeCount: Int {
    var count = 0
    _ = sg_graph_node_count(graph, &count)  // cannot fail: the graph is never freed
    return count
  }

  /// The node's `sg_node_info`, for `body` only (the core copies what it keeps).
  static func info<R>(
    name: String?, file: StaticString, line: UInt, _ body: (UnsafePointer<sg_node_info>) -> R
  ) -> R {
    // A `#fileID` literal is stored NUL-terminated for the life of the process: passed as
    // it is, it costs no String (an allocation per node beyond 15 bytes) and no copy.
    if file.hasPointerRepresentation, file.utf8Start[file.utf8CodeUnitCount] == 0 {
      return file.utf8Start.withMemoryRebound(
        to: CChar.self, capacity: file.utf8CodeUnitCount + 1
      ) { cFile in
        withCName(name) { cName in
          var info = sg_node_info(name: cName, file: cFile, line: Int32(clamping: line))
          return body(&info)
        }
      }
    }
    return file.withUTF8Buffer { fileBytes in
      // Not NUL-terminated (a one-scalar StaticString): copy into a C string.
      String(decoding: fileBytes, as: UTF8.self).withCString { cFile in
        withCName(name) { cName in
          var info = sg_node_info(name: cName, file: cFile, line: Int32(clamping: line))
          return body(&info)
        }
      }
    }
  }

  /// `name` as a C string, or nil (the core's "no name") when there is none.
  private static func withCName<R>(
    _ name: String?, _ body: (UnsafePointer<CChar>?) -> R
  ) -> R {
    guard let name else { return body(nil) }
    return name.withCString { body($0) }
  }

  /// Reads (and tracks) a node; a cycle or a broken invariant stops the
  /// program with a message naming the nodes involved.
  @inlinable @inline(__always)
  static func read(_ node: OpaquePointer) {
    let status = sg_read_unchecked(node)
    if status != 0 { fail(status, node) }
  }

  /// ``read(_:)`` that also answers whether it was made outside any computation (one
  /// call where ``read(_:)`` and ``isComputing`` would make two).
  @inlinable @inline(__always)
  static func readSayingIfOutside(_ node: OpaquePointer) -> Bool {
    let status = sg_read_where_unchecked(node)
    if status < 0 { fail(status, node) }
    return status == 0
  }

  /// Where ``readArming(_:)`` read: inside a computation, or outside one, where it armed
  /// the node's watcher if it has one.
  @usableFromInline
  enum ArmedRead { case inside, outsideWatched, outsideUnwatched }

  /// A read that, outside computations, also arms the node's watcher (a computed node,
  /// for Observation) under the same lock as the read. `outsideWatched` also says that
  /// what was stored before the watcher was set is visible here.
  @inlinable @inline(__always) @discardableResult
  static func readArming(_ node: OpaquePointer) -> ArmedRead {
    let status = sg_read_arm_unchecked(node)
    if status < 0 { fail(status, node) }
    if status == 1 { return .inside }
    return status == Int32(SG_READ_WATCHED) ? .outsideWatched : .outsideUnwatched
  }

  /// A write (or batch end, or new effect) that the core answered with
  /// `SG_ECYCLE` — a computation writing a node it reads, or handlers writing
  /// each other's inputs without end — stops the program like a dependency
  /// cycle, naming the nodes. Other results of a write need no handling.
  @inlinable @inline(__always)
  static func wrote(_ status: Int32) {
    if status == SG_ECYCLE.rawValue { cycle() }
  }

  @usableFromInline
  static func cycle() -> Never {
    fatalError("StateGraph: dependency cycle: \(String(cString: sg_last_cycle()))")
  }

  @usableFromInline
  static func fail(_ status: Int32, _ node: OpaquePointer) -> Never {
    if status == SG_ECYCLE.rawValue { cycle() }
    var description = sg_node_description()
    let name =
      sg_node_describe(node, &description) == 0
      ? String(cString: description.name) : "(destroyed node)"
    fatalError("StateGraph: reading '\(name)' failed: \(String(cString: sg_strerror(status)))")
  }

  /// True while a compute or effect closure of the graph runs on this thread.
  @inlinable @inline(__always)
  static var isComputing: Bool { sg_current() != nil }
}
