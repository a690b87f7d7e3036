import StateGraphCore

/// Names the graph nodes that `owner`'s properties hold after the owner's
/// type and the property: `ShoppingCart.total`. Snapshots, DOT pictures,
/// traces and cycle reports then say whose node is whose.
///
/// ```swift
/// let cart = ShoppingCartViewModel()
/// nameGraphNodes(of: cart)  // "ShoppingCartViewModel.items", "ShoppingCartViewModel.total", ...
/// ```
///
/// It finds `@GraphStored` and `@GraphComputed` properties (their `_name`
/// storage) and plain `Stored`/`Computed` properties, also those declared by
/// a superclass, by reflection, so call it once, after `init`, where a
/// readable graph matters (debugging, the demo, tests). A `@GraphComputed`
/// that was not assigned yet is skipped. The nodes' ``Stored/name`` and
/// ``Computed/name`` change with it. A node shared by two owners ends up with
/// the last name.
///
/// - Returns: how many nodes were named.
@discardableResult
public func nameGraphNodes(of owner: Any) -> Int {
  let ownerName = String(describing: type(of: owner))
  var named = 0
  var mirror: Mirror? = Mirror(reflecting: owner)
  while let current = mirror {
    for child in current.children {
      guard let label = child.label, let node = coreNode(in: child.value) else { continue }
      let property = label.hasPrefix("_") ? label.dropFirst() : Substring(label)
      sg_node_set_name(node, "\(ownerName).\(property)")
      named += 1
    }
    mirror = current.superclassMirror
  }
  return named
}

/// The C node of a `Stored` or `Computed` (also inside an optional, as the
/// macros' `@GraphComputed` storage is).
private func coreNode(in value: Any) -> OpaquePointer? {
  if let holder = value as? CoreNodeHolder { return holder.node }
  let mirror = Mirror(reflecting: value)
  guard mirror.displayStyle == .optional, let wrapped = mirror.children.first else { return nil }
  return coreNode(in: wrapped.value)
}
