import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@GraphComputed var total: Double` becomes a read-only property over a `Computed<Double>`
/// node that the initialiser supplies with `self.$total = .init { _ in ... }`.
///
/// The private `_total` is an optional that starts as `nil`, so it is initialised before
/// `init` runs: an initialiser can capture `self` in one computation before it has assigned
/// the others, as the normalization samples do. `$total` unwraps it, and reading it before
/// assignment stops with a message that says what to write.
///
/// `$total`'s setter is `private`: the type's own initialisers (and the rest of its
/// declaration) give it its computation, and no code outside can swap it afterwards.
///
/// In a class that declares `Sendable`, which may hold no mutable stored property,
/// `_total` is a `let` slot that holds the node instead (`_GraphComputedSlot`).
public struct GraphComputedMacro: AccessorMacro, PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingAccessorsOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AccessorDeclSyntax] {
    guard
      let property = GraphProperty.read(
        declaration, attribute: node, kind: .computed, in: context, report: false)
    else {
      return []
    }
    return [
      """
      get {
        \(property.nodeName).wrappedValue
      }
      """
    ]
  }

  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard
      let property = GraphProperty.read(
        declaration, attribute: node, kind: .computed, in: context, report: true)
    else {
      return []
    }
    let storage = property.storageName
    let nodeType: TypeSyntax = "StateGraph.Computed<\(property.valueType)>"
    let unassigned = StringLiteralExprSyntax(
      content: "@GraphComputed '\(property.name)' was read before it was given a computation; "
        + "assign 'self.\(property.nodeName.text) = .init { _ in ... }' in init")
    // A private property's setter is private already; repeating it would be an error.
    let isPrivate = property.accessModifiers.contains { $0.name.tokenKind == .keyword(.private) }
    let setterAccess = isPrivate ? "" : "private(set) "
    // A class that declares `Sendable` may hold no mutable stored property: the node then
    // lives in a `let` slot, made empty with the object (see `_GraphComputedSlot`).
    let storageDeclaration: DeclSyntax
    let heldNode: ExprSyntax
    if property.isInSendableClass {
      storageDeclaration =
        "@GraphIgnored private let \(storage) = StateGraph._GraphComputedSlot<\(property.valueType)>()"
      heldNode = "\(storage).node"
    } else {
      storageDeclaration = "@GraphIgnored private var \(storage): \(nodeType)? = nil"
      heldNode = "\(storage)"
    }
    return [
      storageDeclaration,
      """
      @GraphIgnored \(property.accessModifiers)\(raw: setterAccess)var \(property.nodeName): \(nodeType) {
        get {
          guard let node = \(heldNode) else {
            Swift.preconditionFailure(\(unassigned))
          }
          return node
        }
        set {
          \(heldNode) = newValue
        }
      }
      """,
    ]
  }
}
