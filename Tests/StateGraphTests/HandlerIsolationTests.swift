import Foundation
import Testing

@testable import StateGraph

/// A handler takes the isolation of the code that registers it: a main-actor
/// model's handlers touch its main-actor state, an actor's handlers its
/// state, with no annotation, and they run there whichever thread writes.
@Suite("Handler isolation")
struct HandlerIsolationTests {
  @MainActor final class CounterScreen {
    @GraphStored var count: Int = 0
    var label = ""
    var history: [Int] = []
    var doubled: [Int] = []
    var ranOnMainActor: [Bool] = []
    var subscription: StateGraphSubscription?

    func bind() {
      subscription = withGraphTracking {
        $count.onChange { value in
          self.history.append(value)
          self.ranOnMainActor.append(Delivery(MainActor.shared).isCurrent)
        }
        withGraphTrackingGroup {
          self.label = "count \(self.count)"
          self.ranOnMainActor.append(Delivery(MainActor.shared).isCurrent)
        }
        withGraphTrackingMap({ self.count * 2 }) { value in
          self.doubled.append(value)
          self.ranOnMainActor.append(Delivery(MainActor.shared).isCurrent)
        }
      }
    }
  }

  /// Written from a thread of its own, each handler of a main-actor model
  /// runs on the main actor and updates the model's own state.
  @Test(.timeLimit(.minutes(1))) @MainActor func aMainActorModelsHandlersRunOnTheMainActor() async {
    let screen = CounterScreen()
    screen.bind()
    let count = screen.$count
    #expect(onAnotherThread { count.wrappedValue = 3 })
    await screen.subscription?.settled()
    #expect(screen.history == [0, 3])
    #expect(screen.label == "count 3")
    #expect(screen.doubled == [0, 6])
    #expect(screen.ranOnMainActor == [true, true, true, true, true, true])
  }

  actor Tally {
    let count = Stored(wrappedValue: 0)
    private(set) var total = 0
    private(set) var ranOnActor: [Bool] = []
    private var subscription: StateGraphSubscription?

    func bind() {
      subscription = withGraphTracking {
        count.onChange { value in
          self.total += value
          self.ranOnActor.append(Delivery(self).isCurrent)
        }
      }
    }

    func settled() async { await subscription?.settled() }
  }

  /// An actor's handler runs on the actor and updates its state, for writes
  /// from any thread, each value once and in order.
  @Test(.timeLimit(.minutes(1))) func anActorsHandlerRunsOnTheActor() async {
    let tally = Tally()
    await tally.bind()
    let count = tally.count
    #expect(onAnotherThread { for next in 1...10 { count.wrappedValue = next } })
    await tally.settled()
    #expect(await tally.total == 55)
    #expect(await tally.ranOnActor == Array(repeating: true, count: 11))
  }

  /// A closure written with its own isolation keeps it, whatever the
  /// registering code's: a `@MainActor` handler registered outside any actor
  /// runs on the main actor, not on the writing thread.
  @Test(.timeLimit(.minutes(1))) func anExplicitlyIsolatedHandlerRunsWithItsIsolation() async {
    let value = Stored(wrappedValue: 0)
    let runs = Recorder<String>()
    let subscription = withGraphTracking {
      value.onChange { @MainActor value in
        runs.append("\(value) \(mainActorOrElsewhere())")
      }
    }
    #expect(onAnotherThread { value.wrappedValue = 1 })
    await subscription.settled()
    #expect(runs.values == ["0 main actor", "1 main actor"])
  }

  /// A map whose handler names the main actor runs its projection there
  /// too: the two run together, in one run of the group. Registered outside
  /// the main actor, even its first run is queued there.
  @Test(.timeLimit(.minutes(1))) func aMapRunsWhereItsIsolatedClosureMustRun() async {
    let value = Stored(wrappedValue: 0)
    let runs = Recorder<String>()
    let subscription = withGraphTracking {
      withGraphTrackingMap({
        runs.append("projection \(mainActorOrElsewhere())")
        return value.wrappedValue
      }) { @MainActor value in
        runs.append("\(value) \(mainActorOrElsewhere())")
      }
    }
    await subscription.settled()  // the first run, queued for the main actor
    #expect(runs.values == ["projection main actor", "0 main actor"])
    #expect(onAnotherThread { value.wrappedValue = 1 })
    await subscription.settled()
    #expect(
      runs.values == [
        "projection main actor", "0 main actor", "projection main actor", "1 main actor",
      ])
  }
}

/// Where the caller runs, as the runtime's check of the current executor says.
private func mainActorOrElsewhere() -> String {
  Delivery(MainActor.shared).isCurrent ? "main actor" : "elsewhere"
}
