import MacroTesting
import Testing

/// `backed:` belongs to the storage runtime; the macro only passes it to `Stored.init`
/// exactly as written.
@Suite(.macros(graphMacros, indentationWidth: .spaces(2)))
struct BackedStorageExpansionTests {
  @Test func backingIsPassedThrough() {
    assertMacro {
      """
      final class SettingsViewModel {
        @GraphStored(backed: .userDefaults(key: "theme"))
        var theme: String = "light"

        @GraphStored(backed: UserDefaultsMarker.userDefaults(suite: "com.myapp.settings", key: "apiUrl"))
        var apiUrl: String = "https://api.example.com"
      }
      """
    } expansion: {
      """
      final class SettingsViewModel {
        var theme: String {
          @storageRestrictions(initializes: _theme)
          init(initialValue) {
            _theme = .init(name: "theme", wrappedValue: initialValue, backed: .userDefaults(key: "theme"))
          }
          get {
            _theme.wrappedValue
          }
          set {
            _theme.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _theme: StateGraph.Stored<String>

        @GraphIgnored var $theme: StateGraph.Stored<String> {
          @storageRestrictions(initializes: _theme)
          init(initialValue) {
            _theme = initialValue
          }
          get {
            _theme
          }
          set {
            _theme = newValue
          }
        }
        var apiUrl: String {
          @storageRestrictions(initializes: _apiUrl)
          init(initialValue) {
            _apiUrl = .init(name: "apiUrl", wrappedValue: initialValue, backed: UserDefaultsMarker.userDefaults(suite: "com.myapp.settings", key: "apiUrl"))
          }
          get {
            _apiUrl.wrappedValue
          }
          set {
            _apiUrl.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _apiUrl: StateGraph.Stored<String>

        @GraphIgnored var $apiUrl: StateGraph.Stored<String> {
          @storageRestrictions(initializes: _apiUrl)
          init(initialValue) {
            _apiUrl = initialValue
          }
          get {
            _apiUrl
          }
          set {
            _apiUrl = newValue
          }
        }
      }
      """
    }
  }

  @Test func backedOptionalWithoutInitialValue() {
    assertMacro {
      """
      final class Session {
        @GraphStored(backed: .userDefaults(key: "token")) var token: String?
      }
      """
    } expansion: {
      """
      final class Session {
        var token: String? {
          @storageRestrictions(initializes: _token)
          init(initialValue) {
            _token = .init(name: "token", wrappedValue: initialValue, backed: .userDefaults(key: "token"))
          }
          get {
            _token.wrappedValue
          }
          set {
            _token.wrappedValue = newValue
          }
        }

        @GraphIgnored private var _token: StateGraph.Stored<String?> = .init(name: "token", wrappedValue: nil, backed: .userDefaults(key: "token"))

        @GraphIgnored var $token: StateGraph.Stored<String?> {
          @storageRestrictions(initializes: _token)
          init(initialValue) {
            _token = initialValue
          }
          get {
            _token
          }
          set {
            _token = newValue
          }
        }
      }
      """
    }
  }
}
