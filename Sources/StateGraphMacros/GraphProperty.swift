import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// Which graph macro is reading the property; the rules differ slightly between the two.
enum GraphPropertyKind: String, CustomStringConvertible {
  case stored = "GraphStored"
  case computed = "GraphComputed"

  var description: String { rawValue }
}

/// A `var` that a graph macro may expand, read once and checked against every rule.
///
/// Both roles of a macro (accessor and peer) read the same declaration. Only the peer role
/// reports problems, so that each one appears once.
struct GraphProperty {
  /// The property name without backticks: the node's debug name and the stem of the peers.
  let name: String
  /// The node's value type: the declared type, except that `T!` becomes `T?` because a
  /// generic argument cannot be implicitly unwrapped.
  let valueType: TypeSyntax
  /// The value written on the declaration, if any.
  let initialValue: ExprSyntax?
  var hasInitialValue: Bool { initialValue != nil }
  /// True for `T?`, `T!` and `Optional<T>`, which start as `nil` when no value is written.
  let isOptional: Bool
  /// The property's access modifiers (`public`, `private(set)`, ...), repeated on `$name`.
  let accessModifiers: DeclModifierListSyntax
  /// Structs need `nonmutating set`: the node is a class, so writing through it leaves the
  /// struct itself untouched.
  let isInValueType: Bool
  /// A class that declares `Sendable` may hold no mutable stored property, so its node is
  /// kept in a `let` (see ``GraphStoredMacro`` and ``GraphComputedMacro``).
  let isInSendableClass: Bool
  /// `willSet` / `didSet` written on a `@GraphStored` property.
  let observers: PropertyObservers?
  /// Where the property lives: in each instance, once per type, or once per program.
  let placement: Placement

  enum Placement {
    /// An instance property of a class, struct or actor.
    case instance
    /// A `static` property of a type or extension.
    case typeMember
    /// A global variable.
    case global
  }

  /// The access modifiers for a `$name` without a setter: `private(set)` and the like
  /// have nothing to restrict there, and the compiler rejects them.
  var readOnlyAccessModifiers: DeclModifierListSyntax {
    accessModifiers.filter { $0.detail == nil }
  }

  /// The setter of the node's value, running the property's observers around the write.
  func valueSetter(keyword: String) -> AccessorDeclSyntax {
    if let observers {
      return observers.setter(keyword: keyword, storage: storageName, valueType: valueType)
    }
    return """
      \(raw: keyword) {
        \(storageName).wrappedValue = newValue
      }
      """
  }

  /// The private peer that owns the node.
  var storageName: TokenSyntax { .identifier("_\(name)") }
  /// The peer that exposes the node, as in `self.$count`.
  var nodeName: TokenSyntax { .identifier("$\(name)") }
  /// The node's name as a string literal.
  var nameLiteral: StringLiteralExprSyntax { StringLiteralExprSyntax(content: name) }

  /// Reads `declaration`; returns `nil` if any rule is broken, after reporting each broken
  /// rule to `context` when `report` is true.
  static func read(
    _ declaration: some DeclSyntaxProtocol,
    attribute: AttributeSyntax,
    kind: GraphPropertyKind,
    in context: some MacroExpansionContext,
    report: Bool
  ) -> GraphProperty? {
    var reader = Reader(attribute: attribute, kind: kind)
    // The compiler gives the lexical context. swift-syntax's test expander leaves it empty
    // when it expands the source a fix-it produced, but the declaration is still attached
    // to that source there: its nearest enclosing declaration says the same.
    let enclosingType = context.lexicalContext.first ?? nearestEnclosingDeclaration(of: declaration)
    let property = reader.read(declaration, enclosingType: enclosingType)
    if report {
      reader.problems.forEach(context.diagnose)
    }
    return reader.problems.isEmpty ? property : nil
  }
}

/// The type, extension or function around `declaration` in its syntax tree, if it has one.
private func nearestEnclosingDeclaration(of declaration: some SyntaxProtocol) -> Syntax? {
  var node = declaration.parent
  while let current = node {
    if current.isProtocol(DeclGroupSyntax.self) || current.is(FunctionDeclSyntax.self)
      || current.is(ClosureExprSyntax.self) || current.is(AccessorDeclSyntax.self)
    {
      return current
    }
    node = current.parent
  }
  return nil
}

/// Collects every broken rule rather than stopping at the first, so one build shows them all.
private struct Reader {
  let attribute: AttributeSyntax
  let kind: GraphPropertyKind
  var problems: [Diagnostic] = []

  init(attribute: AttributeSyntax, kind: GraphPropertyKind) {
    self.attribute = attribute
    self.kind = kind
  }

  mutating func read(_ declaration: some DeclSyntaxProtocol, enclosingType: Syntax?) -> GraphProperty? {
    guard let variable = declaration.as(VariableDeclSyntax.self) else {
      problem(attribute, .notAVariable(kind))
      return nil
    }
    // An instance's node lives in a class, struct or actor body. A `static` @GraphStored
    // property's node lives in its type (enums and extensions too), and a global's at file
    // scope, which has no lexical context. Neither has the storage copy that @Observable's
    // @ObservationTracked makes of a property, attributes and all; that copy gets a message
    // pointing at the real cause.
    let isStatic = variable.modifiers.contains { $0.name.tokenKind == .keyword(.static) }
    let placement: GraphProperty.Placement
    if let enclosingType {
      let holdsInstances =
        enclosingType.is(ClassDeclSyntax.self) || enclosingType.is(StructDeclSyntax.self)
        || enclosingType.is(ActorDeclSyntax.self)
      let holdsStatics =
        holdsInstances || enclosingType.is(EnumDeclSyntax.self) || enclosingType.is(ExtensionDeclSyntax.self)
      if isStatic && holdsStatics && kind == .stored {
        placement = .typeMember
      } else if holdsInstances && !isStatic {
        placement = .instance
      } else if isStatic && holdsStatics {
        placement = .typeMember  // reported by checkModifiers: @GraphComputed has no static form
      } else {
        problem(attribute, .notInsideAType(kind))
        return nil
      }
    } else if Self.attributeNames(variable).contains("ObservationIgnored") {
      problem(attribute, .copiedByObservable(kind))
      return nil
    } else if kind == .stored {
      placement = .global
    } else {
      problem(attribute, .notInsideAType(kind))
      return nil
    }
    if variable.bindingSpecifier.tokenKind == .keyword(.let) {
      let varKeyword = variable.bindingSpecifier.with(\.tokenKind, .keyword(.var))
      problem(
        variable.bindingSpecifier, .letProperty(kind), fix: .replaceLetWithVar,
        changes: [.replace(oldNode: Syntax(variable.bindingSpecifier), newNode: Syntax(varKeyword))])
    }
    guard variable.bindings.count == 1, let binding = variable.bindings.first else {
      problem(variable.bindings, .multipleBindings(kind))
      return nil
    }
    guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier else {
      problem(binding.pattern, .missingName(kind))
      return nil
    }
    let name = identifier.identifier?.name ?? identifier.text

    checkModifiers(of: variable, name: name)
    let observers = checkAccessorsAndValue(of: binding, name: name)
    if let enclosingType {
      checkObservation(of: variable, enclosingType: enclosingType, name: name)
    }
    guard let type = binding.typeAnnotation?.type.trimmed else {
      problem(binding.pattern, .missingTypeAnnotation(kind, name: name))
      return nil
    }

    // A static or global node is made where it is declared: no initialiser assigns it.
    if kind == .stored, placement != .instance, binding.initializer == nil, !Self.isOptional(type) {
      problem(binding.pattern, .sharedWithoutValue(name: name))
    }

    let implicitlyUnwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self)
    return GraphProperty(
      name: name,
      valueType: implicitlyUnwrapped.map { TypeSyntax(OptionalTypeSyntax(wrappedType: $0.wrappedType)) }
        ?? type,
      initialValue: binding.initializer?.value.trimmed,
      isOptional: Self.isOptional(type),
      accessModifiers: Self.accessModifiers(of: variable),
      // A static setter mutates no instance, so only an instance property needs `nonmutating`.
      isInValueType: placement == .instance && enclosingType?.is(StructDeclSyntax.self) == true,
      isInSendableClass: placement == .instance
        && enclosingType?.as(ClassDeclSyntax.self).map(Self.declaresSendable) == true,
      observers: observers,
      placement: placement
    )
  }

  private mutating func checkModifiers(of variable: VariableDeclSyntax, name: String) {
    for modifier in variable.modifiers {
      switch modifier.name.tokenKind {
      case .keyword(.static) where kind == .computed, .keyword(.class):
        problem(modifier, .staticProperty(kind))
      case .keyword(.lazy):
        problem(
          modifier, .lazyProperty(kind, name: name), fix: .remove(modifier), changes: [removal(of: modifier)])
      case .keyword(.weak), .keyword(.unowned):
        problem(
          modifier, .referenceOwnership(kind, name: name, keyword: modifier.name.text),
          fix: .remove(modifier), changes: [removal(of: modifier)])
      case _ where kind == .computed && modifier.detail != nil && Self.isAccessLevel(modifier):
        problem(
          modifier, .computedWithSetterAccess(name: name), fix: .remove(modifier),
          changes: [removal(of: modifier)])
      default:
        break
      }
    }
  }

  /// Returns the observers of a `@GraphStored` property, which the setter runs.
  private mutating func checkAccessorsAndValue(of binding: PatternBindingSyntax, name: String)
    -> PropertyObservers?
  {
    var observers: PropertyObservers?
    if let accessorBlock = binding.accessorBlock {
      let onlyObservers: PropertyObservers? =
        if case .accessors(let accessors) = accessorBlock.accessors { PropertyObservers(accessors) } else { nil }
      if let onlyObservers, kind == .stored {
        observers = onlyObservers
      } else if onlyObservers != nil {
        problem(accessorBlock, .hasObservers(kind, name: name))
      } else {
        problem(accessorBlock, .hasAccessors(kind, name: name))
      }
    }
    if kind == .computed, let initializer = binding.initializer {
      let withoutValue = binding.with(\.initializer, nil).with(
        \.typeAnnotation, binding.typeAnnotation?.with(\.trailingTrivia, []))
      problem(
        initializer, .computedWithInitialValue(name: name), fix: .removeInitialValue,
        changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(withoutValue))])
    }
    return observers
  }

  /// `@Observable` would give the property a second set of accessors; `@ObservationIgnored`
  /// prevents that, but only when written after our attribute, because the compiler checks
  /// every accessor on a property against the first accessor macro's declared names.
  private mutating func checkObservation(of variable: VariableDeclSyntax, enclosingType: Syntax, name: String)
  {
    let attributes = variable.attributes.compactMap { $0.as(AttributeSyntax.self) }
    let names = Self.attributeNames(variable)
    let appendIgnored = FixIt.Change.replace(
      oldNode: Syntax(attribute),
      newNode: Syntax(attribute.with(\.trailingTrivia, " @ObservationIgnored" + attribute.trailingTrivia)))

    if let ignoredIndex = names.firstIndex(of: "ObservationIgnored") {
      if let ourIndex = names.firstIndex(of: Self.attributeName(attribute)), ignoredIndex < ourIndex {
        let ignored = attributes[ignoredIndex]
        problem(
          ignored, .observationIgnoredFirst(kind), fix: .moveObservationIgnored(after: kind),
          changes: [removal(of: ignored), appendIgnored])
      }
    } else if let typeAttributes = enclosingType.asProtocol(WithAttributesSyntax.self)?.attributes,
      typeAttributes.contains(where: { $0.as(AttributeSyntax.self).map(Self.attributeName) == "Observable" })
    {
      problem(
        attribute, .insideObservableMacro(kind, name: name), fix: .addObservationIgnored,
        changes: [appendIgnored])
    }
  }

  /// Records a broken rule, with the edit that repairs it when there is one.
  private mutating func problem(
    _ node: some SyntaxProtocol, _ message: GraphMacroDiagnostic, fix: GraphMacroFixIt? = nil,
    changes: [FixIt.Change] = []
  ) {
    let fixIts = fix.map { [FixIt(message: $0, changes: changes)] } ?? []
    problems.append(Diagnostic(node: node, message: message, fixIts: fixIts))
  }

  /// Deletes `node` with its trailing space, keeping the indentation before it.
  private func removal(of node: some SyntaxProtocol) -> FixIt.Change {
    .replace(
      oldNode: Syntax(node),
      newNode: Syntax(TokenSyntax.unknown("").with(\.leadingTrivia, node.leadingTrivia)))
  }

  private static func isAccessLevel(_ modifier: DeclModifierSyntax) -> Bool {
    switch modifier.name.tokenKind {
    case .keyword(.open), .keyword(.public), .keyword(.package), .keyword(.internal), .keyword(.fileprivate),
      .keyword(.private):
      return true
    default:
      return false
    }
  }

  /// Access modifiers to repeat on `$name`. `open` becomes `public`: the node accessor is
  /// not meant to be overridden.
  private static func accessModifiers(of variable: VariableDeclSyntax) -> DeclModifierListSyntax {
    DeclModifierListSyntax(
      variable.modifiers.filter(isAccessLevel).map { modifier in
        let name =
          modifier.name.tokenKind == .keyword(.open) ? TokenSyntax.keyword(.public) : modifier.name.trimmed
        return modifier.trimmed.with(\.name, name).with(\.trailingTrivia, .space)
      })
  }

  /// Whether the class lists `Sendable` among its conformances, checked by the compiler
  /// (`@unchecked Sendable` is not: it allows mutable stored properties).
  private static func declaresSendable(_ type: ClassDeclSyntax) -> Bool {
    guard let inherited = type.inheritanceClause?.inheritedTypes else { return false }
    return inherited.contains { inheritedType in
      let name = inheritedType.type.trimmedDescription
      return name == "Sendable" || name == "Swift.Sendable"
    }
  }

  private static func isOptional(_ type: TypeSyntax) -> Bool {
    if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
      return true
    }
    if let identifier = type.as(IdentifierTypeSyntax.self) {
      return identifier.name.text == "Optional"
    }
    if let member = type.as(MemberTypeSyntax.self) {
      return member.name.text == "Optional" && member.baseType.trimmedDescription == "Swift"
    }
    return false
  }

  private static func attributeNames(_ variable: VariableDeclSyntax) -> [String] {
    variable.attributes.compactMap { $0.as(AttributeSyntax.self) }.map(attributeName)
  }

  /// The last name component, so `@Observation.Observable` reads as `Observable`.
  private static func attributeName(_ attribute: AttributeSyntax) -> String {
    let name = attribute.attributeName
    return name.as(MemberTypeSyntax.self)?.name.text ?? name.trimmedDescription
  }
}
