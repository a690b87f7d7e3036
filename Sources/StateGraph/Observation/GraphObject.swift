import Observation

extension Stored: Observable {}
extension Computed: Observable {}

/// Marks a model whose `@GraphStored` / `@GraphComputed` properties should be
/// visible to Observation (and so to SwiftUI's `@Environment(Model.self)`).
///
/// The properties' nodes register every read and change with Observation
/// themselves, so conforming is all a model needs:
///
/// ```swift
/// final class AppState: GraphObject {
///   @GraphStored var count: Int = 0
/// }
/// ```
///
/// Use `GraphObject` instead of `@Observable`: Apple's macro would wrap the
/// `@GraphStored` properties a second time.
public protocol GraphObject: AnyObject, Observable {}
