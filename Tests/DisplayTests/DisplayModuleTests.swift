import Testing
@testable import Display

@Suite struct DisplayModuleTests {
    @Test func moduleLinks() { _ = Display.self }
}
