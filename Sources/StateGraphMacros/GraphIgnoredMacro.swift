import SwiftSyntax
import SwiftSyntaxMacros

/// `@GraphIgnored` expands to nothing. It marks members the graph macros generate (and
/// members a user wants left alone), so tools reading attributes can tell them apart.
public struct GraphIgnoredMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    []
  }
}
