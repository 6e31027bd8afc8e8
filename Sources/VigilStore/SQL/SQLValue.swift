/// A value bound to or read from a statement.
enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    var int: Int? { if case .integer(let v) = self { Int(v) } else { nil } }
    var string: String? { if case .text(let v) = self { v } else { nil } }
    var bytes: [UInt8]? { if case .blob(let v) = self { v } else { nil } }
    var double: Double? {
        switch self {
        case .real(let v): v
        case .integer(let v): Double(v)
        default: nil
        }
    }
}

extension Optional where Wrapped == String {
    var sql: SQLValue { map(SQLValue.text) ?? .null }
}
