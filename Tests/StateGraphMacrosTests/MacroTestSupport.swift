import SwiftSyntaxMacros
import StateGraphMacros

/// The macros as the compiler sees them. `@GraphIgnored` is left out on purpose, so the
/// expanded source shows the marker on generated peers instead of expanding it away.
let graphMacros: [String: Macro.Type] = [
  "GraphStored": GraphStoredMacro.self,
  "GraphComputed": GraphComputedMacro.self,
]
