// The public face of the StateGraphMacros plugin. The runtime types the expansions name
// (`Stored`, `Computed`) live in this module, so user code needs only `import StateGraph`.

/// Turns a `var` into a graph property backed by a ``Stored`` node.
///
/// Reads and writes go through the node, so computations that read the property depend
/// on it. `$name` is the node itself: observe it, bind it, or share it with another object.
///
/// ```swift
/// final class CounterViewModel {
///   @GraphStored var count: Int = 0
///   @GraphStored var title: String   // assigned in init
///
///   init(title: String, sharing other: CounterViewModel? = nil) {
///     self.title = title
///     if let other { self.$count = other.$count }  // one node, two objects
///   }
/// }
/// ```
///
/// The property needs a type annotation and `var`. An initial value is optional: without
/// one, every initialiser assigns either `self.name` or `self.$name` (optionals start as
/// `nil`). Access modifiers carry over to `$name`, including `private(set)`. In a struct the
/// setter is `nonmutating`, because the node is a shared reference, and no memberwise
/// initialiser is synthesised (`name` and `$name` both initialise the node).
///
/// `willSet` and `didSet` work as on a plain stored property: they run around every write
/// through the property (equal values included), not around writes through
/// `$name.wrappedValue`, nor when `init` gives the first value. The `oldValue` a `didSet`
/// gets is read as a plain property's observer reads its storage, untracked: a
/// computation that assigns the property does not come to depend on it.
///
/// ```swift
/// final class Player {
///   @GraphStored var volume: Double = 0.5 {
///     didSet { if volume > 1 { volume = 1 } }
///   }
/// }
/// ```
///
/// On a `static` property (of a class, struct, enum or extension) or a global variable,
/// the node is made once, where the property is declared, so it needs an initial value
/// (optionals may omit it); `$name` is read-only:
///
/// ```swift
/// enum AppState {
///   @GraphStored static var isOnline: Bool = true
/// }
/// @GraphStored var launchCount: Int = 0
/// ```
///
/// In a class that declares `Sendable` (not `@unchecked Sendable`), which the Swift 6 mode
/// lets hold no mutable stored property, the node is kept in a `let` and `$name` has no
/// setter. `init` may still assign `self.name`, and `self.$name = other.$name` when the
/// property has no initial value and is not optional (otherwise its node exists already).
/// The value type must then be `Sendable`.
///
/// A class holding graph properties is observable through its nodes: conform it to
/// ``GraphObject`` rather than applying `@Observable`, whose own accessors collide with these.
/// In an `@Observable` class, write `@GraphStored @ObservationIgnored` (in that order).
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_), prefixed(`$`))
public macro GraphStored() = #externalMacro(module: "StateGraphMacros", type: "GraphStoredMacro")

/// Turns a `var` into a graph property whose value persists in `backed`, a UserDefaults key
/// or a ``StorageBacking`` of your own.
///
/// ```swift
/// final class SettingsViewModel {
///   @GraphStored(backed: .userDefaults(key: "theme"))
///   var theme: String = "light"
///
///   @GraphStored(backed: .userDefaults(suite: "com.myapp.settings", key: "apiUrl"))
///   var apiUrl: String = "https://api.example.com"
///
///   @GraphStored(backed: UserDefaultsMarker.userDefaults(key: "lastOpened"))
///   var lastOpened: Date?
/// }
/// ```
///
/// The property starts with what the key holds, or with its declared value when the key
/// holds nothing; every write is saved at once, and the property follows the key when it is
/// written elsewhere (see ``GraphStorageBacking``). Everything else is as for
/// ``GraphStored()``: computed properties over it, `$name`, observation. The value type must
/// be a property-list type, a `RawRepresentable` with a property-list raw value, or
/// `Codable`; an optional set to `nil` removes the key.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_), prefixed(`$`))
public macro GraphStored(backed: GraphStorageBacking) =
  #externalMacro(module: "StateGraphMacros", type: "GraphStoredMacro")

/// Turns a `var` into a read-only graph property backed by a ``Computed`` node.
///
/// The initialiser gives the computation by assigning `$name`. The closure's reads are
/// tracked, and the value is recomputed only when something it read has changed.
///
/// ```swift
/// final class PersonViewModel {
///   @GraphStored var firstName: String = ""
///   @GraphStored var lastName: String = ""
///   @GraphComputed var fullName: String
///
///   init() {
///     self.$fullName = .init { [$firstName, $lastName] _ in
///       "\($firstName.wrappedValue) \($lastName.wrappedValue)"
///     }
///   }
/// }
/// ```
///
/// In a class that declares `Sendable`, the node is kept in a `let` slot that is locked on
/// access, so the class holds no mutable stored property; the rules above are unchanged.
///
/// The property needs a type annotation and no initial value. Reading it before `$name`
/// has been assigned stops the program with a message naming the property. `$name` is
/// settable from the start of `init`, so one computation may capture `self` before the
/// others are assigned.
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_), prefixed(`$`))
public macro GraphComputed() = #externalMacro(module: "StateGraphMacros", type: "GraphComputedMacro")

/// Another name for ``GraphComputed()``, swift-state-graph's for a property whose node
/// `init` assigns: `@GraphComputedNode var doubled: Int`, then `$doubled = node`.
@attached(accessor, names: named(get))
@attached(peer, names: prefixed(_), prefixed(`$`))
public macro GraphComputedNode() =
  #externalMacro(module: "StateGraphMacros", type: "GraphComputedMacro")

/// Marks a member that the graph macros and observation support leave alone.
///
/// The macros put it on the peers they generate (`_count`, `$count`); it has no expansion.
///
/// ```swift
/// final class Editor {
///   @GraphIgnored var scratch: [String] = []
/// }
/// ```
@attached(peer)
public macro GraphIgnored() = #externalMacro(module: "StateGraphMacros", type: "GraphIgnoredMacro")
