import StateGraphCore

/// A value with no references in it (`Int`, `Double`, a struct of them), which a copy of
/// its bytes is: readers may copy it without taking the lock its writers hold, keeping the
/// copy only when no holder overlapped it (see `ValueLock.readWithoutLocking` and
/// docs/core-protocol.md, "Reads of plain values without the lock"). Writers store it, and
/// readers copy it, with relaxed atomic operations, so a copy thrown away was no data race.
@usableFromInline
enum PlainValue<Value> {
  /// Whether `Value` may be read this way: on Linux. On Apple platforms the value lock is
  /// `os_unfair_lock`, which keeps no generation, so every read takes it.
  @inlinable
  static var isPlain: Bool {
    #if canImport(Darwin)
      false
    #else
      _isPOD(Value.self)
    #endif
  }

  /// One aligned 8-byte word (`Int`, `Double`, …): one load or store.
  @inlinable
  static var isOneWord: Bool {
    MemoryLayout<Value>.size == 8 && MemoryLayout<Value>.alignment == 8
  }

  /// Stores `value` at `place`, for a holder of the lock that guards it.
  @inlinable
  static func store(_ value: Value, at place: UnsafeMutableRawPointer) {
    if isOneWord {
      sg_store_word_relaxed(place, unsafeBitCast(value, to: UInt64.self))
    } else {
      withUnsafePointer(to: value) { sg_copy_relaxed(place, $0, MemoryLayout<Value>.size) }
    }
  }

  /// The value at `place`, copied without taking `lock`; nil when a holder of the lock
  /// may have stored to it meanwhile (the caller takes the lock then).
  @inlinable
  static func copy(at place: UnsafeRawPointer, guardedBy lock: borrowing ValueLock) -> Value? {
    if isOneWord {
      var word: UInt64 = 0
      let copied = lock.readWithoutLocking { word = sg_load_word_relaxed(place) }
      return copied ? unsafeBitCast(word, to: Value.self) : nil
    }
    return withUnsafeTemporaryAllocation(of: Value.self, capacity: 1) { copy in
      let copyPlace = copy.baseAddress.unsafelyUnwrapped
      let copied = lock.readWithoutLocking {
        sg_copy_relaxed(copyPlace, place, MemoryLayout<Value>.size)
      }
      return copied ? copyPlace.pointee : nil
    }
  }
}
