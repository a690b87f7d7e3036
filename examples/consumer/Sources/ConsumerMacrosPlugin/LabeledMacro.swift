import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

public struct LabeledMacro: ExpressionMacro {
  public static func expansion(
    of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
  ) -> ExprSyntax {
    let argument = node.arguments.first!.expression
    let label = argument.trimmedDescription
    return "(\(literal: label), \(argument))"
  }
}

@main struct ConsumerMacrosPlugin: CompilerPlugin {
  let providingMacros: [Macro.Type] = [LabeledMacro.self]
}
