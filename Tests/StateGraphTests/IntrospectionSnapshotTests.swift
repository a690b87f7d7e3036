import StateGraph
import Testing

/// Snapshots and DOT of small local graphs, exact to the byte. Tests run in
/// parallel on one process-wide graph, so each looks at the part around its
/// own nodes (`.upstream`, `.downstream`, ...), never at the whole graph.
@Suite("Introspection: snapshots and DOT")
struct IntrospectionSnapshotTests {
  /// price, quantity → subtotal → onChange(subtotal); big reads subtotal but
  /// never ran, so it has no edge yet and is not around subtotal.
  final class Shop {
    let price = Stored(name: "price", wrappedValue: 3, file: "shop.swift", line: 10)
    let quantity = Stored(name: "quantity", wrappedValue: 2, file: "shop.swift", line: 11)
    let subtotal: Computed<Int>
    let big: Computed<Bool>
    let seen = Recorder<Int>()
    var subscription: StateGraphSubscription?

    init() {
      let (price, quantity) = (price, quantity)
      subtotal = Computed(name: "subtotal", file: "shop.swift", line: 12) { _ in
        price.wrappedValue * quantity.wrappedValue
      }
      let subtotal = subtotal
      big = Computed(name: "big", file: "shop.swift", line: 13) { _ in subtotal.wrappedValue > 10 }
      let seen = seen
      subscription = withGraphTracking {
        subtotal.onChange(file: "shop.swift", line: 14) { seen.append($0) }
      }
    }
  }

  @Test func snapshotHoldsExactlyTheNodesEdgesStatesAndCounts() {
    let shop = Shop()
    var snapshot: GraphSnapshot!
    withGraphBatch {
      shop.price.wrappedValue = 4  // marked, nothing ran yet
      snapshot = GraphSnapshot.capture(.upstreamAndDownstream(of: shop.subtotal))
    }
    let nodes = snapshot.nodes
    #expect(nodes.map(\.name) == ["price", "quantity", "subtotal", "onChange(subtotal)"])
    #expect(nodes.map(\.kind) == [.stored, .stored, .computed, .effect])
    #expect(nodes.map(\.state) == [.clean, .clean, .dirty, .check])
    #expect(nodes.map(\.value) == ["4", "2", "6", nil])
    #expect(nodes.map(\.version) == [1, 0, 1, 1])
    #expect(nodes.map(\.runCount) == [0, 0, 1, 1])
    #expect(nodes.map(\.file) == Array(repeating: "shop.swift", count: 4))
    #expect(nodes.map(\.line) == [10, 11, 12, 14])  // a handler is named where it was registered
    let ids = nodes.map(\.id)
    #expect(ids == ids.sorted())
    #expect(nodes.map(\.sources) == [[], [], [ids[0], ids[1]], [ids[2]]])
    #expect(
      snapshot.edges == [
        .init(source: ids[0], target: ids[2]), .init(source: ids[1], target: ids[2]),
        .init(source: ids[2], target: ids[3]),
      ])
    #expect(
      snapshot.description == """
        price [stored] = 4
        quantity [stored] = 2
        subtotal [computed, dirty, 1 run] = 6 <- price, quantity
        onChange(subtotal) [effect, check, 1 run] <- subtotal
        """)
    #expect(shop.seen.values == [6, 8])

    // after the batch: clean, and each ran once more
    let after = GraphSnapshot.capture(.upstreamAndDownstream(of: shop.subtotal))
    #expect(after.nodes.map(\.state) == [.clean, .clean, .clean, .clean])
    #expect(after.nodes.map(\.runCount) == [0, 0, 2, 2])
    #expect(after.node(named: "subtotal")?.value == "8")
  }

  @Test func directionsChooseTheirPart() {
    let shop = Shop()
    #expect(shop.big.wrappedValue == false)  // now big has an edge
    let up = GraphSnapshot.capture(.upstream(of: shop.subtotal))
    #expect(up.nodes.map(\.name) == ["price", "quantity", "subtotal"])
    let down = GraphSnapshot.capture(.downstream(of: shop.subtotal))
    #expect(down.nodes.map(\.name) == ["subtotal", "big", "onChange(subtotal)"])
    #expect(down.nodes[0].sources == [])  // price and quantity are not in it
    let stored = GraphSnapshot.capture(.downstream(of: shop.quantity))
    #expect(stored.nodes.map(\.name) == ["quantity", "subtotal", "big", "onChange(subtotal)"])
    let whole = GraphSnapshot.capture()
    #expect(Set(down.nodes.map(\.id)).isSubset(of: whole.nodes.map(\.id)))
  }

  @Test func aComputedThatNeverRanHasNoValue() {
    let shop = Shop()
    let snapshot = GraphSnapshot.capture(.upstream(of: shop.big))
    let big = snapshot.node(named: "big")
    #expect(big?.value == nil)
    #expect(big?.state == .dirty)
    #expect(big?.runCount == 0)
    #expect(snapshot.nodes.count == 1)
  }

  @Test func dotIsExact() {
    let shop = Shop()
    shop.quantity.wrappedValue = 5
    let dot = GraphSnapshot.capture(.upstream(of: shop.subtotal)).dot()
    #expect(
      dot == #"""
        digraph stategraph {
          node [fontname="Helvetica", fontsize=11, style=filled];
          edge [color="#495057"];
          n0 [label="price\n= 3\nstored\nshop.swift:10", shape=box, fillcolor="#e7f5ff"];
          n1 [label="quantity\n= 5\nstored\nshop.swift:11", shape=box, fillcolor="#e7f5ff"];
          n2 [label="subtotal\n= 15\ncomputed, clean, 2 runs\nshop.swift:12", shape=box, style="rounded,filled", fillcolor="white"];
          n0 -> n2;
          n1 -> n2;
        }

        """#)
  }

  @Test func valuesAreDescribedAndCutInTheDOT() {
    struct Item: CustomStringConvertible {
      var description: String { "an item whose description is \"long\" on purpose" }
    }
    let item = Stored(name: "item", wrappedValue: Item(), file: "item.swift", line: 1)
    let snapshot = GraphSnapshot.capture(.upstream(of: item))
    #expect(snapshot.nodes.first?.value == "an item whose description is \"long\" on purpose")
    #expect(
      snapshot.dot().contains(
        #"n0 [label="item\n= an item whose description is \"long\" on p...\nstored\nitem.swift:1""#))
  }

  /// The macros name stored nodes after their property; nameGraphNodes adds
  /// the owner type, and names computed ones too.
  final class Cart {
    @GraphStored var items: [Int] = []
    @GraphComputed var count: Int
    init() { $count = .init { [$items] _ in $items.wrappedValue.count } }
  }

  @Test func nameGraphNodesQualifiesNames() {
    let cart = Cart()
    _ = cart.count
    #expect(GraphSnapshot.capture(.upstream(of: cart.$count)).nodes.map(\.name) == ["items", ""])
    #expect(nameGraphNodes(of: cart) == 2)
    #expect(
      GraphSnapshot.capture(.upstream(of: cart.$count)).nodes.map(\.name) == [
        "Cart.items", "Cart.count",
      ])
    #expect(cart.$items.name == "Cart.items")  // one node, one name
    #expect(cart.$count.name == "Cart.count")
  }
}
