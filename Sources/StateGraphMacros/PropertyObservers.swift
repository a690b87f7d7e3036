import SwiftSyntax
import SwiftSyntaxBuilder

/// The `willSet` and `didSet` written on a `@GraphStored` property, which the macro moves
/// into the setter it generates: they run around each write through the property, as on
/// a plain stored property. Writes through `$name.wrappedValue` bypass them, as writes to
/// a property's storage do.
struct PropertyObservers {
  struct Observer {
    /// The parameter's name: `newValue` / `oldValue` unless the observer names it.
    let parameter: TokenSyntax
    let body: CodeBlockItemListSyntax

    /// Whether the body mentions the parameter: a `didSet` that does not is given no old
    /// value, which then is not read, as Swift skips it for its own observers.
    var usesParameter: Bool {
      body.tokens(viewMode: .sourceAccurate).contains { token in
        token.tokenKind == parameter.tokenKind
      }
    }
  }

  var willSet: Observer?
  var didSet: Observer?

  /// Reads the observers of `accessors`; nil when it holds anything else (a getter, a
  /// setter), which the caller reports.
  init?(_ accessors: AccessorDeclListSyntax) {
    for accessor in accessors {
      let parameter = accessor.parameters?.name.trimmed
      let body = accessor.body?.statements.trimmed ?? []
      switch accessor.accessorSpecifier.tokenKind {
      case .keyword(.willSet):
        willSet = Observer(parameter: parameter ?? "newValue", body: body)
      case .keyword(.didSet):
        didSet = Observer(parameter: parameter ?? "oldValue", body: body)
      default:
        return nil
      }
    }
  }

  /// The setter of `storage`, with the observers around the write. `keyword` is `set` or
  /// `nonmutating set`; `valueType` types the observers' parameters.
  ///
  /// Each observer becomes a local function, so a `return` in it ends the observer only
  /// (the write still happens, as with a plain property's `willSet`), and its body reads
  /// members without `self.`, as it did.
  func setter(keyword: String, storage: TokenSyntax, valueType: TypeSyntax) -> AccessorDeclSyntax {
    // A name no observer would use, so that `newValue` is free for `willSet`'s parameter.
    let incoming = "__graphStoredNewValue"
    var lines: [String] = []
    if let willSet {
      lines.append("func __willSet(_ \(willSet.parameter.text): \(valueType.trimmedDescription)) {")
      lines.append(willSet.body.trimmedDescription)
      lines.append("}")
      lines.append("__willSet(\(incoming))")
    }
    if let didSet {
      let readsOldValue = didSet.usesParameter
      lines.append(
        readsOldValue
          ? "func __didSet(_ \(didSet.parameter.text): \(valueType.trimmedDescription)) {"
          : "func __didSet() {")
      lines.append(didSet.body.trimmedDescription)
      lines.append("}")
      if readsOldValue {
        // Untracked, as a plain property's observer reads its storage: the write is no
        // read, so a computation that assigns the property (a model made inside one)
        // neither depends on it nor meets it as a cycle.
        lines.append("let __graphStoredOldValue = \(storage.text)._untrackedValue")
      }
      lines.append("\(storage.text).wrappedValue = \(incoming)")
      lines.append(readsOldValue ? "__didSet(__graphStoredOldValue)" : "__didSet()")
    } else {
      lines.append("\(storage.text).wrappedValue = \(incoming)")
    }
    let body = lines.joined(separator: "\n")
    return """
      \(raw: keyword)(\(raw: incoming)) {
      \(raw: body)
      }
      """
  }
}
