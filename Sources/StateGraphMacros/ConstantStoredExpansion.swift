import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@GraphStored` in a class that declares `Sendable`: such a class may hold no mutable
/// stored property, so the node lives in `private let _count` and `$count` has no setter.
///
/// The node is created once, where the value is first known:
/// - With a value on the declaration (or an optional without one, which Swift starts as
///   `nil`), the `let` is initialised with it, and `count`'s init accessor only reads
///   `_count`, so `self.count = 1` in `init` is an ordinary write.
/// - Without one, `count` and `$count` both have init accessors that initialise the `let`:
///   `init` assigns either `self.count = 1` or `self.$count = other.$count`, once.
enum ConstantStoredExpansion {
  static func accessors(_ property: GraphProperty, attribute: AttributeSyntax) -> [AccessorDeclSyntax] {
    let storage = property.storageName
    let initAccessor: AccessorDeclSyntax
    if declaredValue(property) != nil {
      // The compiler passes the declared value here as well; the node already holds it.
      initAccessor = """
        @storageRestrictions(accesses: \(storage))
        init(initialValue) {
        }
        """
    } else {
      let arguments = GraphStoredMacro.nodeArguments(property, value: "initialValue", attribute: attribute)
      initAccessor = """
        @storageRestrictions(initializes: \(storage))
        init(initialValue) {
          \(storage) = .init(\(arguments))
        }
        """
    }
    return [
      initAccessor,
      """
      get {
        \(storage).wrappedValue
      }
      """,
      property.valueSetter(keyword: "set"),
    ]
  }

  static func peers(_ property: GraphProperty, attribute: AttributeSyntax) -> [DeclSyntax] {
    let storage = property.storageName
    let nodeType: TypeSyntax = "StateGraph.Stored<\(property.valueType)>"
    guard let declared = declaredValue(property) else {
      return [
        "@GraphIgnored private let \(storage): \(nodeType)",
        """
        @GraphIgnored \(property.readOnlyAccessModifiers)var \(property.nodeName): \(nodeType) {
          @storageRestrictions(initializes: \(storage))
          init(initialValue) {
            \(storage) = initialValue
          }
          get {
            \(storage)
          }
        }
        """,
      ]
    }
    let arguments = GraphStoredMacro.nodeArguments(property, value: declared, attribute: attribute)
    return [
      "@GraphIgnored private let \(storage): \(nodeType) = .init(\(arguments))",
      """
      @GraphIgnored \(property.readOnlyAccessModifiers)var \(property.nodeName): \(nodeType) {
        \(storage)
      }
      """,
    ]
  }

  /// The value the node starts with when the declaration settles it: the written value,
  /// or `nil` for an optional without one.
  private static func declaredValue(_ property: GraphProperty) -> ExprSyntax? {
    if let initialValue = property.initialValue { return initialValue }
    return property.isOptional ? "nil" : nil
  }
}
