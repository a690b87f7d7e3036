import StateGraphNormalization

// EntityStore (StateGraphNormalization): a store of 100k entities; one op
// updates one entity and reads 1000 readers of *other* entities. Fine-grained
// invalidation means no reader recomputes; the baseline is a dictionary of
// plain classes whose readers were wired by hand (so nothing to redo either).

final class BenchEntity: TypedIdentifiable, @unchecked Sendable {
  typealias TypedIdentifierRawValue = Int
  let typedID: TypedID
  @GraphStored var likes: Int

  init(id: Int, likes: Int) {
    self.typedID = .init(id)
    self.likes = likes
  }
}

func entityStoreWorkloads(_ config: RunConfig) -> [SpeedWorkload] {
  let entities = config.quick ? 2_000 : 100_000
  let readers = config.quick ? 100 : 1_000
  return [
    SpeedWorkload(
      section: "EntityStore", name: "\(entities) entities, \(readers) unrelated readers",
      op: "update 1 entity, read \(readers) readers", verifyOps: 50,
      makeBaseline: { EntityBaseline(entities: entities, readers: readers) },
      makeGraph: { EntityGraph(entities: entities, readers: readers) },
      expected: { ops in
        var t = Tally()
        // each op reads every reader: entity k has likes k, readers watch 0..<readers
        t.checksum = ops &* (readers * (readers - 1) / 2)
        return t
      }),
    SpeedWorkload(
      section: "EntityStore", name: "lookup by id in \(entities)", op: "get(by:) + read",
      verifyOps: 1_000,
      makeBaseline: { EntityBaseline(entities: entities, readers: 0) },
      makeGraph: { EntityGraph(entities: entities, readers: 0) },
      expected: nil),
  ]
}

/// The updated entity is always one no reader watches (ids from `readers` up).
private func updatedID(_ op: Int, _ entities: Int, _ readers: Int) -> Int {
  readers + op % (entities - readers)
}

final class EntityBaseline: Subject {
  final class Entity {
    var likes: Int
    init(likes: Int) { self.likes = likes }
  }
  private var byID: [Int: Entity] = [:]
  private var readerCache: [Int]
  private let readers: Int
  private let entities: Int
  private(set) var tally = Tally()

  init(entities: Int, readers: Int) {
    for id in 0..<entities { byID[id] = Entity(likes: id) }
    self.readers = readers
    self.entities = entities
    readerCache = (0..<readers).map { $0 }
  }

  func run(_ ops: Range<Int>) {
    for op in ops {
      if readers == 0 {
        tally.checksum &+= byID[op % entities]!.likes
        continue
      }
      byID[updatedID(op, entities, readers)]!.likes += 1  // no reader depends on it
      for value in readerCache { tally.checksum &+= value }
    }
  }
}

final class EntityGraph: Subject {
  private let store = EntityStore<BenchEntity>()
  private let readerNodes: [Computed<Int>]
  private let recomputes = Counter()
  private let readers: Int
  private let entities: Int
  private var sum = 0

  var tally: Tally { Tally(checksum: sum, recomputes: recomputes.count - readers) }

  init(entities: Int, readers: Int) {
    store.add((0..<entities).map { BenchEntity(id: $0, likes: $0) })
    let (store, recomputes) = (self.store, self.recomputes)
    readerNodes = (0..<readers).map { id in
      Computed { _ in
        recomputes.count += 1
        return store.get(by: .init(id))?.likes ?? -1
      }
    }
    self.readers = readers
    self.entities = entities
    for reader in readerNodes { _ = reader.wrappedValue }  // first evaluation, not counted
  }

  func run(_ ops: Range<Int>) {
    for op in ops {
      if readers == 0 {
        sum &+= store.get(by: .init(op % entities))!.likes
        continue
      }
      store.modify(.init(updatedID(op, entities, readers))) { $0.likes += 1 }
      for reader in readerNodes { sum &+= reader.wrappedValue }
    }
  }
}
