import StateGraph

final class CounterViewModel {
  @GraphStored
  var count: Int

  @GraphComputed
  var isEven: Bool

  init(count: Int) {
    self.count = count
    self.$isEven = .init { [$count] _ in
      $count.wrappedValue % 2 == 0
    }
  }

  func increment() {
    count += 1
  }
}

func counterViewModel() {
  let viewModel = CounterViewModel(count: 1)
  let subscription = withGraphTracking {
    viewModel.$isEven.onChange { isEven in say("isEven → \(isEven)") }
  }
  for _ in 0..<3 {
    viewModel.increment()
    say("count = \(viewModel.count)")
  }
  subscription.cancel()
}
