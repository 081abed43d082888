import Testing
import CSodium

@Suite struct CShimTests {
    @Test func sodium() { #expect(sodium_init() >= 0) }
}
