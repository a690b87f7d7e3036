extension EntityStore {
  /// The entity with `id`. Setting an entity adds or replaces it; setting
  /// `nil` deletes it.
  ///
  /// ```swift
  /// store.users[userID] = updatedUser
  /// let user = store.users[userID]
  /// store.users[userID] = nil  // deleted
  /// ```
  ///
  /// Reading is tracked like ``get(by:)``. A new value's `typedID`
  /// must be `id`.
  ///
  /// - Complexity: O(1) on average.
  public subscript(id: Entity.TypedID) -> Entity? {
    get { get(by: id) }
    set {
      guard let newValue else {
        delete(id)
        return
      }
      precondition(
        newValue.typedID == id,
        "EntityStore<\(entityName)>: assigned an entity with ID \(newValue.typedID) to [\(id)]")
      add(newValue)
    }
  }
}
