// Keeps the code of StateGraph.docc/UsingTheMacros.md compiling and checked.
import StateGraph
import Testing

enum MacrosArticle {
  final class PersonModel {
    @GraphStored var firstName: String = ""
    @GraphStored var lastName: String
    @GraphComputed var fullName: String
    @GraphComputed var initials: String

    init(lastName: String) {
      self.lastName = lastName
      self.$fullName = .init { [$firstName, $lastName] _ in
        "\($firstName.wrappedValue) \($lastName.wrappedValue)"
      }
      self.$initials = .init { [$firstName, $lastName] _ in
        let first = $firstName.wrappedValue.first.map(String.init) ?? ""
        let last = $lastName.wrappedValue.first.map(String.init) ?? ""
        return first + last
      }
    }
  }

  final class DownloadService {
    @GraphStored var progress: Double = 0
  }

  final class DownloadViewModel {
    @GraphStored var progress: Double
    @GraphComputed var percent: String

    init(service: DownloadService) {
      self.$progress = service.$progress
      self.$percent = .init { [$progress] _ in
        "\(Int($progress.wrappedValue * 100)) %"
      }
    }
  }

  struct Selection {
    @GraphStored var index: Int = 0
  }
}

@Suite struct MacrosArticleTests {
  typealias Selection = MacrosArticle.Selection

  @Test func person() {
    let person = MacrosArticle.PersonModel(lastName: "Lovelace")
    person.firstName = "Ada"
    #expect(person.fullName == "Ada Lovelace")
    #expect(person.initials == "AL")
    person.lastName = "Byron"
    #expect(person.initials == "AB")
  }

  @Test func sharedNode() {
    let service = MacrosArticle.DownloadService()
    let viewModel = MacrosArticle.DownloadViewModel(service: service)
    service.progress = 0.25
    #expect(viewModel.progress == 0.25)
    #expect(viewModel.percent == "25 %")
    viewModel.progress = 0.5
    #expect(service.progress == 0.5)
    #expect(service.$progress === viewModel.$progress)
  }

  @Test func structs() {
    let selection = Selection()
    selection.index = 2
    #expect(selection.index == 2)
  }
}
