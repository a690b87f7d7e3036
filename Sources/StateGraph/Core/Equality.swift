/// How a node decides that a new value is the same as the old one, which
/// stops propagation (equality cutoff): `Equatable` values compare with `==`,
/// class instances by identity, anything else always counts as changed.
@usableFromInline
enum Equality {
  /// A type's comparison, made once per type and shared by every node of that
  /// type: a node keeps one reference (8 bytes) rather than a closure (16), and
  /// a closure made in generic code would capture the type's metadata (and its
  /// `Equatable` conformance), a heap allocation and a conformance lookup per node.
  @usableFromInline
  final class Comparator<Value>: @unchecked Sendable {
    /// Never optional: a node calls it on every change, and unwrapping an
    /// optional closure costs a retain and a release.
    @usableFromInline let same: (Value, Value) -> Bool
    /// A node's own comparison (`Stored(wrappedValue:shouldNotify:)`), which the common
    /// types' inline `==` must not replace.
    @usableFromInline let isNodesOwn: Bool

    init(same: @escaping (Value, Value) -> Bool, isNodesOwn: Bool = false) {
      self.same = same
      self.isNodesOwn = isNodesOwn
    }

    /// Whether `lhs` and `rhs` are the same. Inlined where `Value` is known, so that the
    /// commonest value types compare with their own `==`, a few instructions, rather than
    /// through the shared closure and the `Equatable` witness (about 30).
    @inlinable @inline(__always)
    func callAsFunction(_ lhs: Value, _ rhs: Value) -> Bool {
      if isNodesOwn { return same(lhs, rhs) }
      if Value.self == Int.self { return unsafeBitCast(lhs, to: Int.self) == unsafeBitCast(rhs, to: Int.self) }
      if Value.self == Bool.self { return unsafeBitCast(lhs, to: Bool.self) == unsafeBitCast(rhs, to: Bool.self) }
      if Value.self == Double.self {
        return unsafeBitCast(lhs, to: Double.self) == unsafeBitCast(rhs, to: Double.self)
      }
      if Value.self == String.self {
        return unsafeBitCast(lhs, to: String.self) == unsafeBitCast(rhs, to: String.self)
      }
      // Borrowed for the call: otherwise the caller retains and releases the closure's
      // context around it.
      let comparator = self
      return withExtendedLifetime(comparator) { comparator.same(lhs, rhs) }
    }
  }

  /// `Value`'s comparator: looked up once per node created, first among the ones this
  /// thread looked up last (no lock), then in the table every thread shares.
  @usableFromInline
  static func comparator<Value>(for _: Value.Type) -> Comparator<Value> {
    let type = unsafeBitCast(Value.self, to: UnsafeRawPointer.self)
    let found = ThreadState.withCurrent { state in
      if let recent = state.recentComparators.find(type) { return recent }
      let shared = sharedComparator(for: Value.self, type)
      state.recentComparators.keep(shared, for: type)
      return shared
    }
    return unsafeDowncast(found.takeUnretainedValue(), to: Comparator<Value>.self)
  }

  private static func sharedComparator<Value>(
    for _: Value.Type, _ type: UnsafeRawPointer
  ) -> Unmanaged<AnyObject> {
    if let shared = comparators.find(type) { return .passUnretained(shared) }
    let made = Comparator<Value>(same: makeComparator(for: Value.self))
    return .passUnretained(comparators.add(type, made))
  }

  /// The comparators one thread looked up last: four entries, each a type's metadata
  /// and its comparator, unretained (the shared table keeps every comparator for the
  /// life of the process). Only its thread touches it.
  struct RecentComparators: ~Copyable {
    private typealias Entry = (type: UnsafeRawPointer?, comparator: Unmanaged<AnyObject>?)
    private let entries = UnsafeMutablePointer<Entry>.allocate(capacity: 4)

    init() { entries.initialize(repeating: (nil, nil), count: 4) }
    deinit { entries.deallocate() }

    func find(_ type: UnsafeRawPointer) -> Unmanaged<AnyObject>? {
      let entry = entries[Self.index(of: type)]
      return entry.type == type ? entry.comparator : nil
    }

    func keep(_ comparator: Unmanaged<AnyObject>, for type: UnsafeRawPointer) {
      entries[Self.index(of: type)] = (type, comparator)
    }

    /// Metadata addresses are 16-byte aligned: the bits above those pick the entry.
    private static func index(of type: UnsafeRawPointer) -> Int {
      Int(truncatingIfNeeded: UInt(bitPattern: Int(bitPattern: type)) >> 4) & 3
    }
  }

  private static func makeComparator<Value>(for _: Value.Type) -> (Value, Value) -> Bool {
    if let equatable = Value.self as? any Equatable.Type {
      return comparing(Value.self, as: equatable)
    }
    if Value.self is AnyObject.Type {
      return { unsafeBitCast($0, to: AnyObject.self) === unsafeBitCast($1, to: AnyObject.self) }
    }
    return { _, _ in false }
  }

  /// `Value` and `E` are the same type at run time, so the cast is free: `==`
  /// reads the arguments in place. (Casting the values instead would copy
  /// each through its value witnesses on every comparison.)
  private static func comparing<Value, E: Equatable>(
    _: Value.Type, as _: E.Type
  ) -> (Value, Value) -> Bool {
    unsafeBitCast(Comparison<E>(same: { $0 == $1 }), to: Comparison<Value>.self).same
  }

  /// A closure inside a struct keeps its representation through
  /// `unsafeBitCast`; a bare closure would be wrapped in a thunk on the way
  /// in and another on the way out, two more calls per comparison. A generic
  /// struct stores its closure in the most general representation whatever
  /// `T` is, so `E`'s comparison serves as `Value`'s unchanged.
  private struct Comparison<T> {
    let same: (T, T) -> Bool
  }

  /// The comparators made so far, by type metadata: every type's is made once
  /// and kept for the life of the process, like the metadata.
  private static let comparators = ComparatorTable()

  /// An open-addressing hash table from type metadata to comparator, under a
  /// lock: a lookup is a multiplication and a probe or two (a `Dictionary`
  /// would hash each key with SipHash, several times the cost). The lock
  /// guards the table only; no user code runs under it.
  private final class ComparatorTable: @unchecked Sendable {
    private let lock = ValueLock()
    @exclusivity(unchecked) private var keys: UnsafeMutablePointer<UnsafeRawPointer?>
    @exclusivity(unchecked) private var values: UnsafeMutablePointer<AnyObject>
    @exclusivity(unchecked) private var capacity = 64  // a power of two
    @exclusivity(unchecked) private var count = 0

    init() {
      keys = .allocate(capacity: capacity)
      keys.initialize(repeating: nil, count: capacity)
      values = .allocate(capacity: capacity)
    }

    /// Where `key` is, or the empty slot where it would go.
    private func slot(of key: UnsafeRawPointer) -> Int {
      // Fibonacci hashing: metadata addresses are aligned, so their low bits
      // say little; the product's high bits mix all of them.
      let product = UInt(bitPattern: Int(bitPattern: key)) &* 0x9E37_79B9_7F4A_7C15
      var index = Int(truncatingIfNeeded: product >> 40) & (capacity - 1)
      while let found = keys[index], found != key { index = (index + 1) & (capacity - 1) }
      return index
    }

    func find(_ key: UnsafeRawPointer) -> AnyObject? {
      lock.lock()
      let index = slot(of: key)
      let found = keys[index] != nil ? values[index] : nil
      lock.unlock()
      return found
    }

    /// Keeps `value` for `key`, unless another thread kept one first: returns the one kept.
    func add(_ key: UnsafeRawPointer, _ value: AnyObject) -> AnyObject {
      lock.lock()
      defer { lock.unlock() }
      let index = slot(of: key)
      guard keys[index] == nil else { return values[index] }
      keys[index] = key
      (values + index).initialize(to: value)
      count += 1
      if count * 2 > capacity { grow() }
      return value
    }

    /// Under `lock`: twice the slots, every entry moved to its new place.
    private func grow() {
      let (oldKeys, oldValues, oldCapacity) = (keys, values, capacity)
      capacity *= 2
      keys = .allocate(capacity: capacity)
      keys.initialize(repeating: nil, count: capacity)
      values = .allocate(capacity: capacity)
      for index in 0..<oldCapacity {
        guard let key = oldKeys[index] else { continue }
        let target = slot(of: key)
        keys[target] = key
        (values + target).moveInitialize(from: oldValues + index, count: 1)
      }
      oldKeys.deallocate()
      oldValues.deallocate()
    }
  }
}
