extension Computed {
  /// Creates a computed node from a rule that takes its context `inout`, as
  /// swift-state-graph spells it.
  ///
  /// ```swift
  /// let total = Computed(name: "total", rule: { context in
  ///   price.wrappedValue * Double(quantity.wrappedValue)
  /// })
  /// ```
  ///
  /// The same node as `Computed(name:) { context in ... }`. The context is the
  /// computation's own copy; nothing the rule does to it outlives the run.
  /// - Parameters:
  ///   - name: a debug name, shown in cycle reports and graph snapshots.
  ///   - file: where the node is created, for cycle reports and snapshots.
  ///   - line: the line of `file`.
  ///   - rule: the computation; its reads are tracked.
  // Disfavoured: a trailing closure, `Computed(name:) { context in ... }`, also fits the
  // `rule` parameter, and must keep meaning the main initialiser.
  @_disfavoredOverload
  public convenience init(
    name: String? = nil, file: StaticString = #fileID, line: UInt = #line,
    rule: @escaping @Sendable (inout Context) -> Value
  ) {
    self.init(name: name, file: file, line: line) { context in
      var context = context
      return rule(&context)
    }
  }
}
