import StateGraph

func storedAndComputed() {
  let a = Stored(name: "a", wrappedValue: 10)
  let b = Stored(name: "b", wrappedValue: 20)
  final class Runs: @unchecked Sendable { var count = 0 }
  let counter = Runs()
  let sum = Computed(name: "sum") { _ in
    counter.count += 1
    return a.wrappedValue + b.wrappedValue
  }
  var runs: Int { counter.count }
  say("a = 10, b = 20; sum is computed lazily: \(runs) runs so far")
  say("sum = \(sum.wrappedValue)   (runs: \(runs))")
  say("sum = \(sum.wrappedValue)   (cached, runs: \(runs))")
  a.wrappedValue = 15
  say("a = 15 → sum = \(sum.wrappedValue)   (runs: \(runs))")
  a.wrappedValue = 15
  say("a = 15 again → nothing changed, sum = \(sum.wrappedValue)   (runs: \(runs))")
}
