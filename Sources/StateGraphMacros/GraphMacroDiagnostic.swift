import SwiftDiagnostics
import SwiftSyntax

/// Every error the graph macros report. Each message names the problem and says what to
/// write instead, because the macro is the only place that knows the expansion's rules.
enum GraphMacroDiagnostic: DiagnosticMessage {
  case notAVariable(GraphPropertyKind)
  case notInsideAType(GraphPropertyKind)
  case staticProperty(GraphPropertyKind)
  case sharedWithoutValue(name: String)
  case letProperty(GraphPropertyKind)
  case multipleBindings(GraphPropertyKind)
  case missingName(GraphPropertyKind)
  case missingTypeAnnotation(GraphPropertyKind, name: String)
  case hasAccessors(GraphPropertyKind, name: String)
  case hasObservers(GraphPropertyKind, name: String)
  case lazyProperty(GraphPropertyKind, name: String)
  case referenceOwnership(GraphPropertyKind, name: String, keyword: String)
  case computedWithInitialValue(name: String)
  case computedWithSetterAccess(name: String)
  case insideObservableMacro(GraphPropertyKind, name: String)
  case copiedByObservable(GraphPropertyKind)
  case observationIgnoredFirst(GraphPropertyKind)

  var message: String {
    switch self {
    case .notAVariable(let kind):
      return "@\(kind) can only be attached to a 'var' property of a class or struct"
    case .notInsideAType(.stored):
      return "@GraphStored must be an instance property of a class, struct or actor, a 'static' "
        + "property, or a global variable (not a local or an instance property of an enum or "
        + "extension); elsewhere create the node directly, e.g. 'let count = Stored(wrappedValue: 0)'"
    case .notInsideAType(.computed):
      return "@GraphComputed must be declared in the body of a class or struct, which holds its node "
        + "(extensions, enums, globals and locals cannot); elsewhere create the node directly, "
        + "e.g. 'let total = Computed { _ in ... }'"
    case .staticProperty(let kind):
      return "@\(kind) cannot be used on a 'class' property\(kind == .computed ? " or a 'static' one" : ""); "
        + "declare a node instead, e.g. 'static let shared = \(kind == .computed ? "Computed { _ in ... }" : "Stored(wrappedValue: 0)")'"
    case .sharedWithoutValue(let name):
      return "a static or global @GraphStored property is created where it is declared, so it needs "
        + "an initial value; write 'var \(name): <Type> = <value>' (optionals may omit it)"
    case .letProperty(let kind):
      return "@\(kind) requires 'var' because the macro turns the property into accessors; "
        + "replace 'let' with 'var'"
    case .multipleBindings(let kind):
      return "@\(kind) applies to exactly one property; declare each property on its own line "
        + "with its own @\(kind)"
    case .missingName(let kind):
      return "@\(kind) needs a simple property name such as 'var count: Int'; "
        + "tuple patterns are not supported"
    case .missingTypeAnnotation(let kind, let name):
      return "@\(kind) needs an explicit type to name its node; write 'var \(name): <Type>'"
        + (kind == .stored ? ", e.g. 'var \(name): Int = 0'" : "")
    case .hasAccessors(.stored, let name):
      return "@GraphStored generates the getter and setter of '\(name)'; remove the accessor block, "
        + "and derive values with @GraphComputed instead"
    case .hasAccessors(.computed, let name):
      return "@GraphComputed generates the getter of '\(name)'; remove the accessor block, "
        + "and assign 'self.$\(name) = .init { _ in ... }' in init"
    case .hasObservers(let kind, let name):
      return "@\(kind) does not support 'willSet' or 'didSet' on '\(name)'; remove them and observe "
        + "the node instead, e.g. 'self.$\(name).onChange { newValue in ... }' inside withGraphTracking"
    case .lazyProperty(let kind, let name):
      return "@\(kind) cannot be 'lazy'; remove 'lazy' from '\(name)' "
        + "(a @GraphComputed node is already computed lazily)"
    case .referenceOwnership(let kind, let name, let keyword):
      return "@\(kind) keeps a strong reference in its node, so '\(keyword)' cannot apply to '\(name)'; "
        + "remove '\(keyword)', or store a small struct whose property is '\(keyword)'"
    case .computedWithInitialValue(let name):
      return "@GraphComputed properties take no initial value; remove it and assign "
        + "'self.$\(name) = .init { _ in ... }' in init (or '.init(wrappedValue:) { _ in ... }')"
    case .computedWithSetterAccess(let name):
      return "@GraphComputed property '\(name)' is read-only, so a setter access level has nothing "
        + "to restrict; remove it"
    case .insideObservableMacro(let kind, let name):
      return "@\(kind) '\(name)' cannot be tracked by @Observable as well: both macros generate its "
        + "accessors. Remove @Observable and conform the type to GraphObject (graph properties are "
        + "observable through their nodes), or mark the property '@\(kind) @ObservationIgnored' "
        + "(in that order)"
    case .copiedByObservable(let kind):
      return "@Observable copied @\(kind) onto the storage it generates for the property; "
        + "fix the property itself: write '@\(kind) @ObservationIgnored', or remove @Observable"
    case .observationIgnoredFirst(let kind):
      return "write @ObservationIgnored after @\(kind): the compiler checks the accessors @\(kind) "
        + "generates against the first accessor macro on the property"
    }
  }

  var diagnosticID: MessageID {
    MessageID(domain: "StateGraphMacros", id: String(describing: self).prefix { $0 != "(" }.description)
  }

  var severity: DiagnosticSeverity { .error }
}

/// The suggested edits attached to some diagnostics.
struct GraphMacroFixIt: FixItMessage {
  let message: String

  var fixItID: MessageID {
    MessageID(domain: "StateGraphMacros", id: message)
  }

  static let replaceLetWithVar = GraphMacroFixIt(message: "Replace 'let' with 'var'")
  static let removeInitialValue = GraphMacroFixIt(message: "Remove the initial value")
  static let addObservationIgnored = GraphMacroFixIt(message: "Add '@ObservationIgnored'")

  static func remove(_ modifier: DeclModifierSyntax) -> GraphMacroFixIt {
    GraphMacroFixIt(message: "Remove '\(modifier.trimmedDescription)'")
  }

  static func moveObservationIgnored(after kind: GraphPropertyKind) -> GraphMacroFixIt {
    GraphMacroFixIt(message: "Move '@ObservationIgnored' after '@\(kind)'")
  }
}
