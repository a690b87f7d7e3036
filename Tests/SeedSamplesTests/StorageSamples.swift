// The backing-storage samples of upstream swift-state-graph's README ("Backing Storage")
// and guide ("Persistent Storage"), as written. They use fixed keys of UserDefaults.standard, so the tests run one at a time
// and clear those keys before and after.
import Foundation
import StateGraph
import Testing

enum BackingStorageSample {
  final class SettingsViewModel {
    // Basic UserDefaults storage
    @GraphStored(backed: .userDefaults(key: "theme")) 
    var theme: String = "light"
    
    // UserDefaults with custom suite
    @GraphStored(backed: .userDefaults(suite: "com.myapp.settings", key: "apiUrl"))
    var apiUrl: String = "https://api.example.com"
    
    // All GraphStored features work with backing storage
    @GraphComputed
    var isDarkMode: Bool
    
    init() {
      self.$isDarkMode = .init { [$theme] _ in
        $theme.wrappedValue == "dark"
      }
    }
  }

  final class UserPreferencesViewModel {
    @GraphStored(backed: .userDefaults(key: "userName"))
    var userName: String = ""
    
    @GraphStored(backed: .userDefaults(key: "notificationsEnabled"))
    var notificationsEnabled: Bool = true
    
    @GraphComputed
    var welcomeMessage: String
    
    init() {
      self.$welcomeMessage = .init { [$userName] _ in
        let name = $userName.wrappedValue
        return name.isEmpty ? "Welcome!" : "Welcome, \(name)!"
      }
    }
    
    // Changes are automatically persisted to UserDefaults
    func updateUserName(_ name: String) {
      userName = name  // Automatically saved to UserDefaults
    }
  }
}

enum PersistentStorageSample {
  final class AppSettings {
    // This value persists across app launches
    @GraphStored(backed: UserDefaultsMarker.userDefaults(key: "userName"))
    var userName: String = ""
    
    // Computed properties work with persistent storage too
    @GraphComputed
    var welcomeMessage: String
    
    init() {
      self.$welcomeMessage = .init { [$userName] _ in
        let name = $userName.wrappedValue
        return name.isEmpty ? "Welcome!" : "Welcome, \(name)!"
      }
    }
  }
}

@Suite("Upstream samples: backing storage", .serialized)
struct StorageSamples {
  /// Every key the samples use.
  static func clearSampleKeys() {
    for key in ["theme", "userName", "notificationsEnabled"] {
      UserDefaults.standard.removeObject(forKey: key)
    }
    UserDefaults(suiteName: "com.myapp.settings")!.removeObject(forKey: "apiUrl")
  }

  init() { Self.clearSampleKeys() }

  @Test func settingsViewModel() {
    defer { Self.clearSampleKeys() }
    do {
      let viewModel = BackingStorageSample.SettingsViewModel()
      #expect(viewModel.theme == "light")
      #expect(viewModel.isDarkMode == false)
      #expect(viewModel.apiUrl == "https://api.example.com")

      viewModel.theme = "dark"
      viewModel.apiUrl = "https://staging.example.com"
      #expect(viewModel.isDarkMode)
      #expect(UserDefaults.standard.string(forKey: "theme") == "dark")
      #expect(
        UserDefaults(suiteName: "com.myapp.settings")!.string(forKey: "apiUrl")
          == "https://staging.example.com")
    }
    // The next launch starts with what the last one saved.
    let nextLaunch = BackingStorageSample.SettingsViewModel()
    #expect(nextLaunch.theme == "dark")
    #expect(nextLaunch.isDarkMode)
    #expect(nextLaunch.apiUrl == "https://staging.example.com")
  }

  @Test func userPreferencesViewModel() {
    defer { Self.clearSampleKeys() }
    let viewModel = BackingStorageSample.UserPreferencesViewModel()
    #expect(viewModel.welcomeMessage == "Welcome!")
    #expect(viewModel.notificationsEnabled)

    viewModel.updateUserName("Ada")
    #expect(viewModel.welcomeMessage == "Welcome, Ada!")
    #expect(UserDefaults.standard.string(forKey: "userName") == "Ada")

    viewModel.notificationsEnabled = false
    #expect(UserDefaults.standard.object(forKey: "notificationsEnabled") as? Bool == false)
    #expect(BackingStorageSample.UserPreferencesViewModel().notificationsEnabled == false)
  }

  @Test func appSettings() {
    defer { Self.clearSampleKeys() }
    let settings = PersistentStorageSample.AppSettings()
    #expect(settings.welcomeMessage == "Welcome!")
    settings.userName = "Grace"
    #expect(settings.welcomeMessage == "Welcome, Grace!")
    #expect(UserDefaults.standard.string(forKey: "userName") == "Grace")

    // Same key as UserPreferencesViewModel.userName: the two models share the value.
    let preferences = BackingStorageSample.UserPreferencesViewModel()
    #expect(preferences.welcomeMessage == "Welcome, Grace!")
    preferences.updateUserName("Ada")
    #expect(settings.welcomeMessage == "Welcome, Ada!")
  }

  @Test func storageTypes() {
    // The three cases upstream's README lists under "Storage Types".
    let backings: [GraphStorageBacking] = [
      .memory, .userDefaults(key: "theme"), .userDefaults(suite: "com.myapp.settings", key: "apiUrl"),
    ]
    #expect(backings.count == 3)
    let inMemory = Stored(wrappedValue: 1, backed: .memory)
    inMemory.wrappedValue = 2
    #expect(inMemory.wrappedValue == 2)
  }
}
