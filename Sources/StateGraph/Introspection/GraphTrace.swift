import StateGraphCore

/// What the writes in a ``withGraphTrace(_:)`` caused, chain by chain: which
/// nodes became dirty, which were recomputed and whether their value
/// changed, which were cut off by equality, which observers ran.
///
/// Its ``description`` is an indented tree, one chain per write (or end of
/// batch, or read that found its node stale):
///
/// ```text
/// write Cart.taxRate (App/Cart.swift:14)
///   Cart.tax: dirty
///     Cart.total: check
///       onChange(Cart.total): check
///   onChange(Cart.total): ran
///     Cart.total: recomputed, changed
///       Cart.tax: recomputed, changed
/// ```
///
/// Read it as: the write marked `tax` dirty and, through it, `total` and the
/// observer "check"; after the write the observer ran, which needed `total`,
/// which needed `tax`. A node that is "recomputed, unchanged (cut off)"
/// produced a value equal to the old one, so nothing below it recomputed
/// for it; "verified, not recomputed" means none of a node's sources had
/// changed.
public struct GraphTrace: Sendable, CustomStringConvertible {
  /// What an event records.
  public enum EventKind: Sendable, Hashable {
    /// A stored node was set to a different value (a root).
    case write
    /// A batch that threw put a node's value back (a root).
    case rollback
    /// A node was destroyed: its dependents lost a source (a root).
    case destroy
    /// A read outside computations found the node stale (a root).
    case read
    /// An observer was created and ran for the first time (a root).
    case create
    /// The outermost batch ended and ran the observers its writes reached (a root).
    case batchEnd
    /// The node became dirty or "check" (``Event/state``).
    case mark
    /// A stale node was brought up to date (``Event/outcome``).
    case update
    /// Observation was told that the node may have changed.
    case watcher
  }

  /// How an ``EventKind/update`` ended.
  public enum Outcome: Sendable, Hashable {
    /// A computed ran for the first time.
    case firstRun
    /// A computed ran and its value changed.
    case changed
    /// A computed ran and its value was equal to the old one: cut off, the
    /// nodes that read it were not recomputed for it.
    case unchanged
    /// None of its sources had changed: it did not run.
    case verified
    /// An observer ran.
    case ran
    /// Its closure failed.
    case failed
    /// Not finished: a source failed.
    case abandoned
  }

  /// One event; its children follow it, one ``depth`` deeper.
  public struct Event: Sendable, Hashable {
    /// What happened to the node.
    public let kind: EventKind
    /// 0 for a root (the start of a chain).
    public let depth: Int
    /// The node's id (see ``GraphSnapshot/Node/id``); 0 for ``EventKind/batchEnd``.
    public let nodeID: UInt64
    /// Stored, computed or effect.
    public let nodeKind: GraphSnapshot.Kind
    /// The node's debug name (see ``GraphSnapshot/Node/name``).
    public let name: String
    /// Where the node was created.
    public let file: String
    /// The line of ``file``.
    public let line: Int
    /// For ``EventKind/mark``: the state it was given.
    public let state: GraphSnapshot.State?
    /// For ``EventKind/update``: how it ended.
    public let outcome: Outcome?
  }

  /// Every event, chains one after another, each in depth-first order.
  public let events: [Event]
  /// One line per event, as the C core writes them (so C and Swift traces read alike).
  private let lines: [String]

  /// The events as an indented tree, two spaces per level.
  public var description: String { lines.joined() }

  /// The chains, one per root event, in order.
  public var chains: [GraphTrace] {
    let starts = events.indices.filter { events[$0].depth == 0 } + [events.count]
    return zip(starts, starts.dropFirst()).map { start, end in
      GraphTrace(events: Array(events[start..<end]), lines: Array(lines[start..<end]))
    }
  }

  init(_ events: UnsafeBufferPointer<sg_trace_event>) {
    self.events = events.map(Event.init)
    self.lines = events.indices.map { index in
      CText.capture { sg_trace_write(events.baseAddress! + index, 1, $0) }
    }
  }

  private init(events: [Event], lines: [String]) {
    self.events = events
    self.lines = lines
  }
}

extension GraphTrace.Event {
  init(_ event: sg_trace_event) {
    kind = GraphTrace.EventKind(event.kind)
    depth = Int(event.depth)
    nodeID = event.node_id
    nodeKind = GraphSnapshot.Kind(event.node_kind)
    name = String(cString: event.name)
    file = String(cString: event.file)
    line = Int(event.line)
    state = kind == .mark ? GraphSnapshot.State(event.state) : nil
    outcome = kind == .update ? GraphTrace.Outcome(event.result) : nil
  }
}

extension GraphTrace.EventKind {
  init(_ kind: sg_trace_kind) {
    switch kind {
    case SG_TRACE_WRITE: self = .write
    case SG_TRACE_ROLLBACK: self = .rollback
    case SG_TRACE_DESTROY: self = .destroy
    case SG_TRACE_READ: self = .read
    case SG_TRACE_CREATE: self = .create
    case SG_TRACE_BATCH_END: self = .batchEnd
    case SG_TRACE_MARK: self = .mark
    case SG_TRACE_UPDATE: self = .update
    default: self = .watcher
    }
  }
}

extension GraphTrace.Outcome {
  init(_ result: sg_trace_result) {
    switch result {
    case SG_TRACE_FIRST_RUN: self = .firstRun
    case SG_TRACE_CHANGED: self = .changed
    case SG_TRACE_UNCHANGED: self = .unchanged
    case SG_TRACE_VERIFIED: self = .verified
    case SG_TRACE_RAN: self = .ran
    case SG_TRACE_FAILED: self = .failed
    default: self = .abandoned
    }
  }
}
