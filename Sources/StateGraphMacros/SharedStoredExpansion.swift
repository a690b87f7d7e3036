import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@GraphStored` on a `static` property or a global variable: one node for the program,
/// made where the property is declared (lazily, on first use, as Swift initialises statics
/// and globals), in `private static let _count` or a file-private global `_count`.
///
/// `$count` is read-only: there is no initialiser in which to share another node.
enum SharedStoredExpansion {
  static func accessors(_ property: GraphProperty) -> [AccessorDeclSyntax] {
    [
      """
      get {
        \(property.storageName).wrappedValue
      }
      """,
      property.valueSetter(keyword: "set"),
    ]
  }

  static func peers(_ property: GraphProperty, attribute: AttributeSyntax) -> [DeclSyntax] {
    let storage = property.storageName
    let nodeType: TypeSyntax = "StateGraph.Stored<\(property.valueType)>"
    // The reader requires a value unless the type is optional.
    let declared = property.initialValue ?? "nil"
    let arguments = GraphStoredMacro.nodeArguments(property, value: declared, attribute: attribute)
    let staticKeyword = property.placement == .typeMember ? "static " : ""
    return [
      "@GraphIgnored private \(raw: staticKeyword)let \(storage): \(nodeType) = .init(\(arguments))",
      """
      @GraphIgnored \(property.readOnlyAccessModifiers)\(raw: staticKeyword)var \(property.nodeName): \(nodeType) {
        \(storage)
      }
      """,
    ]
  }
}
