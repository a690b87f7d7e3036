// Keeps the code of StateGraph.docc/ObservingChanges.md compiling and checked.
import Foundation
import Observation
import StateGraph
import Testing

#if canImport(SwiftUI)
  import SwiftUI
#endif

final class StockModel {
  @GraphStored var stockLevel: Int = 10
  @GraphStored var itemsInCart: Int = 0
}

func logChanges(of model: StockModel) async {
  for await stock in model.$stockLevel.observe() {
    print("stock: \(stock)")
    if stock == 0 { break }
  }
}

@MainActor
final class InboxModel {
  @GraphStored var unread: Int = 0
  var badge = ""
  var subscription: StateGraphSubscription?

  func bind() {
    subscription = withGraphTracking {
      $unread.onChange { count in
        self.badge = count == 0 ? "" : "\(count)"
      }
    }
  }
}

final class WriteCount: @unchecked Sendable {  // `count` only under `lock`
  private let lock = NSLock()
  private var count = 0
  var value: Int { lock.withLock { count } }
  func add() { lock.withLock { count += 1 } }
}

func countWrites(to node: Stored<Int>) async -> Int {
  let writes = WriteCount()
  let subscription = withGraphTracking {
    node.onChange { _ in writes.add() }
  }
  await Task.detached { for next in 1...100 { node.wrappedValue = next } }.value
  subscription.cancel()
  return writes.value
}

final class ProfileModel: GraphObject {
  @GraphStored var name: String = ""
  @GraphComputed var greeting: String

  init() {
    self.$greeting = .init { [$name] _ in
      $name.wrappedValue.isEmpty ? "Hello!" : "Hello, \($name.wrappedValue)!"
    }
  }
}

#if canImport(SwiftUI)
  struct ProfileView: View {
    @Environment(ProfileModel.self) private var profile

    var body: some View {
      VStack {
        Text(profile.greeting)
        TextField("Name", text: profile.$name.binding)
      }
    }
  }
#endif

@Suite struct ObservingChangesArticleTests {
  @Test func handlers() {
    let lines = printedLines {
      let model = StockModel()
      var subscriptions = Set<StateGraphSubscription>()
      withGraphTracking {
        Computed { _ in model.stockLevel > model.itemsInCart }
          .onChange { isAvailable in
            print(isAvailable ? "available" : "sold out")
          }
        model.$stockLevel.onChange { stock in
          print("stock: \(stock)")
        }
      }
      .store(in: &subscriptions)

      model.itemsInCart = 1
      model.stockLevel = 0
      #expect(subscriptions.count == 1)
    }
    #expect(lines == ["available", "stock: 10", "stock: 0", "sold out"])
  }

  @Test func filter() {
    let lines = printedLines {
      let temperature = Stored(wrappedValue: 20.0)
      let bigJumps = withGraphTracking {
        temperature.onChange(filter: ComparisonFilter { old, new in abs(new - old) >= 5 }) { value in
          print("now \(value)")
        }
      }
      temperature.wrappedValue = 22
      temperature.wrappedValue = 26
      withExtendedLifetime(bigJumps) {}
    }
    #expect(lines == ["now 20.0", "now 26.0"])
  }

  @Test(.timeLimit(.minutes(1))) func group() async {
    let lines = await printedLines {
      let counter = Stored(wrappedValue: 0)
      let showsDetail = Stored(wrappedValue: false)
      let detail = Stored(wrappedValue: "none")

      let group = withGraphTracking {
        withGraphTrackingGroup {
          var line = "count \(counter.wrappedValue)"
          if showsDetail.wrappedValue {
            line += ", detail \(detail.wrappedValue)"
          }
          print(line)
        }
      }
      detail.wrappedValue = "ignored while hidden"
      await group.settled()
      showsDetail.wrappedValue = true
      await group.settled()
      counter.wrappedValue = 1
      await group.settled()
      withExtendedLifetime(group) {}
    }
    #expect(
      lines == [
        "count 0", "count 0, detail ignored while hidden", "count 1, detail ignored while hidden",
      ])
  }

  @Test(.timeLimit(.minutes(1))) func map() async {
    let lines = await printedLines {
      let items = Stored(wrappedValue: ["apple"])
      let badge = withGraphTracking {
        withGraphTrackingMap({ items.wrappedValue.count }) { count in
          print("badge: \(count)")
        }
      }
      items.wrappedValue.append("pear")
      await badge.settled()
      items.wrappedValue[0] = "plum"
      await badge.settled()
      withExtendedLifetime(badge) {}
    }
    #expect(lines == ["badge: 1", "badge: 2"])
  }

  @Test(.timeLimit(.minutes(1))) @MainActor func mainActorHandler() async {
    let inbox = InboxModel()
    inbox.bind()
    #expect(inbox.badge == "")
    let unread = inbox.$unread
    await Task.detached { unread.wrappedValue = 3 }.value
    await inbox.subscription?.settled()
    #expect(inbox.badge == "3")
  }

  @Test(.timeLimit(.minutes(1))) func sendableCounter() async {
    #expect(await countWrites(to: Stored(wrappedValue: 0)) == 101)
  }

  @Test func asyncSequence() async {
    let model = StockModel()
    let task = Task { await logChanges(of: model) }
    try? await Task.sleep(nanoseconds: 50_000_000)
    model.stockLevel = 3
    model.stockLevel = 0
    await task.value  // ends: the loop breaks at 0
  }

  @Test func observation() {
    let lines = printedLines {
      let tracked = StockModel()
      withObservationTracking {
        _ = tracked.stockLevel
      } onChange: {
        print("stock level will change")
      }
      tracked.stockLevel = 5
      tracked.stockLevel = 6
    }
    #expect(lines == ["stock level will change"])
  }

  @Test func profileModelIsObservable() {
    let profile = ProfileModel()
    let fired = Counter()
    withObservationTracking {
      _ = profile.greeting
    } onChange: {
      fired.tick()
    }
    profile.name = "Ada"
    #expect(fired.value == 1)
    #expect(profile.greeting == "Hello, Ada!")
  }
}
