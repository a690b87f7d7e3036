#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Text a C writer (DOT, traces) writes to a `FILE *`, as a `String`.
enum CText {
  static func capture(_ write: (UnsafeMutablePointer<FILE>) -> Void) -> String {
    var buffer: UnsafeMutablePointer<CChar>?
    var size = 0
    guard let stream = open_memstream(&buffer, &size) else { return "" }
    write(stream)
    fclose(stream)  // flushes: buffer and size are final only now
    defer { free(buffer) }
    return buffer.map { String(cString: $0) } ?? ""
  }
}
