import Foundation
import StateGraph

final class DemoSettings {
  @GraphStored(backed: .userDefaults(suite: "StateGraphDemo", key: "launchCount"))
  var launchCount: Int = 0

  @GraphComputed
  var greeting: String

  init() {
    self.$greeting = .init { [$launchCount] _ in
      let count = $launchCount.wrappedValue
      return count == 0 ? "First run: nothing saved yet." : "The last run saved launch #\(count)."
    }
  }
}

func persistedSetting() {
  let settings = DemoSettings()
  say(settings.greeting)
  settings.launchCount += 1  // saved at once
  say("launchCount = \(settings.launchCount), saved to UserDefaults (suite StateGraphDemo).")
  say("Run the demo again to see it; delete ~/.config/StateGraphDemo.plist to reset.")
}
