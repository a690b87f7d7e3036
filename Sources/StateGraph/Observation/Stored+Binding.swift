#if canImport(SwiftUI)
  import SwiftUI

  extension Stored {
    /// A SwiftUI `Binding` that reads and writes this node.
    ///
    /// ```swift
    /// TextField("Name", text: viewModel.$name.binding)
    /// ```
    public var binding: Binding<Value> {
      Binding(get: { self.wrappedValue }, set: { self.wrappedValue = $0 })
    }
  }
#endif
