/// The app's own macro: `#labeled(x)` is `("x", x)`.
@freestanding(expression)
public macro labeled<T>(_ value: T) -> (String, T) =
  #externalMacro(module: "ConsumerMacrosPlugin", type: "LabeledMacro")
