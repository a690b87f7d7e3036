import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin entry: the macros that `StateGraph/Macros.swift` declares.
@main
struct StateGraphMacrosPlugin: CompilerPlugin {
  let providingMacros: [Macro.Type] = [
    GraphStoredMacro.self,
    GraphComputedMacro.self,
    GraphIgnoredMacro.self,
  ]
}
