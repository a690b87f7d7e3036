import MacroTesting
import StateGraphMacros
import Testing

@Suite(.macros(["GraphIgnored": GraphIgnoredMacro.self], indentationWidth: .spaces(2)))
struct GraphIgnoredMacroTests {
  @Test func expandsToNothing() {
    assertMacro {
      """
      final class Editor {
        @GraphIgnored var scratch: [String] = []
      }
      """
    } expansion: {
      """
      final class Editor {
        var scratch: [String] = []
      }
      """
    }
  }
}
