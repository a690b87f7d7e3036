import StateGraph

final class PersonViewModel {
  @GraphStored
  var firstName: String = ""

  @GraphStored
  var lastName: String = ""

  @GraphComputed
  var fullName: String

  @GraphComputed
  var initials: String

  init() {
    // Define how fullName is computed
    self.$fullName = .init { [$firstName, $lastName] _ in
      "\($firstName.wrappedValue) \($lastName.wrappedValue)"
    }

    // Define how initials is computed
    self.$initials = .init { [$firstName, $lastName] _ in
      let first = $firstName.wrappedValue.first?.uppercased() ?? ""
      let last = $lastName.wrappedValue.first?.uppercased() ?? ""
      return "\(first)\(last)"
    }
  }
}

func personViewModel() {
  let person = PersonViewModel()
  person.firstName = "John"
  person.lastName = "Doe"
  say("fullName = \(person.fullName), initials = \(person.initials)")
  person.firstName = "Jane"
  say("firstName = Jane → fullName = \(person.fullName), initials = \(person.initials)")
}
