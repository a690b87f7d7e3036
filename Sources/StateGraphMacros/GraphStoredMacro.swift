import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@GraphStored var count: Int = 0` becomes accessors over a private `Stored<Int>` node
/// `_count`, plus `$count` to read or replace that node.
///
/// Both `count` and `$count` have init accessors that initialise `_count`, so an
/// initialiser may either give the value (`self.count = 1`) or share another object's node
/// (`self.$count = other.$count`). An initial value written on the property reaches the
/// node through `count`'s init accessor; an optional without one starts as `nil`.
///
/// Two other forms: in a class that declares `Sendable` the node is a `let`
/// (``ConstantStoredExpansion``), and a `static` property or a global has one node made
/// where it is declared (``SharedStoredExpansion``). `willSet`/`didSet` go into the setter
/// in every form (``PropertyObservers``).
public struct GraphStoredMacro: AccessorMacro, PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingAccessorsOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AccessorDeclSyntax] {
    guard
      let property = GraphProperty.read(
        declaration, attribute: node, kind: .stored, in: context, report: false)
    else {
      return []
    }
    if property.placement != .instance {
      return SharedStoredExpansion.accessors(property)
    }
    if property.isInSendableClass {
      return ConstantStoredExpansion.accessors(property, attribute: node)
    }
    let storage = property.storageName
    // The node is a class: writing through it does not mutate the enclosing struct.
    let setter: TokenSyntax = property.isInValueType ? "nonmutating set" : "set"
    return [
      """
      @storageRestrictions(initializes: \(storage))
      init(initialValue) {
        \(storage) = .init(\(nodeArguments(property, value: "initialValue", attribute: node)))
      }
      """,
      """
      get {
        \(storage).wrappedValue
      }
      """,
      property.valueSetter(keyword: setter.text),
    ]
  }

  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard
      let property = GraphProperty.read(
        declaration, attribute: node, kind: .stored, in: context, report: true)
    else {
      return []
    }
    if property.placement != .instance {
      return SharedStoredExpansion.peers(property, attribute: node)
    }
    if property.isInSendableClass {
      return ConstantStoredExpansion.peers(property, attribute: node)
    }
    let storage = property.storageName
    let nodeType: TypeSyntax = "StateGraph.Stored<\(property.valueType)>"
    // Without a written value, an optional starts as nil like any optional stored property;
    // a written value goes through `init(initialValue)` above instead.
    let storageInitializer: InitializerClauseSyntax? =
      !property.hasInitialValue && property.isOptional
      ? InitializerClauseSyntax(
        value: ExprSyntax(".init(\(nodeArguments(property, value: "nil", attribute: node)))"))
      : nil
    return [
      "@GraphIgnored private var \(storage): \(nodeType)\(storageInitializer)",
      """
      @GraphIgnored \(property.accessModifiers)var \(property.nodeName): \(nodeType) {
        @storageRestrictions(initializes: \(storage))
        init(initialValue) {
          \(storage) = initialValue
        }
        get {
          \(storage)
        }
        set {
          \(storage) = newValue
        }
      }
      """,
    ]
  }

  /// `name: "count", wrappedValue: <value>`, followed by `backed: <expression>` when the
  /// attribute names a backing store, passed through exactly as written.
  static func nodeArguments(
    _ property: GraphProperty, value: ExprSyntax, attribute: AttributeSyntax
  ) -> LabeledExprListSyntax {
    let backed = attribute.arguments?.as(LabeledExprListSyntax.self)?.first { $0.label?.text == "backed" }
    return LabeledExprListSyntax {
      LabeledExprSyntax(label: "name", expression: property.nameLiteral)
      LabeledExprSyntax(label: "wrappedValue", expression: value)
      if let backed {
        LabeledExprSyntax(label: "backed", expression: backed.expression.trimmed)
      }
    }
  }
}
