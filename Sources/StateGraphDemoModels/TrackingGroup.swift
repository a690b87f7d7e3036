import StateGraph

func trackingGroup() async {
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
  // A re-run is scheduled, never run inside the write; `settled()` waits for it,
  // so that the story prints in order.
  say("— featureData = v2 while disabled (not tracked: no run)")
  featureData.wrappedValue = "v2"
  await subscription.settled()
  say("— featureEnabled = true")
  featureEnabled.wrappedValue = true
  await subscription.settled()
  say("— featureData = v3 (tracked now)")
  featureData.wrappedValue = "v3"
  await subscription.settled()
  say("— counter = 1 and featureData = v4 in one batch: one re-run sees both")
  withGraphBatch {
    counter.wrappedValue = 1
    featureData.wrappedValue = "v4"
  }
  await subscription.settled()
  subscription.cancel()
}
