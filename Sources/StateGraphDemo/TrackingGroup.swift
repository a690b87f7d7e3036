import StateGraph

func trackingGroup() {
  let counter = Stored(name: "counter", wrappedValue: 0)
  let featureEnabled = Stored(name: "featureEnabled", wrappedValue: false)
  let featureData = Stored(name: "featureData", wrappedValue: "v1")
  let subscription = withGraphTracking {
    withGraphTrackingGroup {
      var line = "Count: \(counter.wrappedValue)"
      if featureEnabled.wrappedValue {
        line += ", feature data: \(featureData.wrappedValue)"
      }
      say("group ran → \(line)")
    }
  }
  say("— featureData = v2 while disabled (not tracked: no run)")
  featureData.wrappedValue = "v2"
  say("— featureEnabled = true")
  featureEnabled.wrappedValue = true
  say("— featureData = v3 (tracked now)")
  featureData.wrappedValue = "v3"
  subscription.cancel()
}
