import CPunktfunkFEC

/// The SIMD kernel sets of CPunktfunkFEC (pf_fec.h). All produce identical bytes; they differ only
/// in speed and in which CPUs can run them.
enum FECKernel {
    /// Names in increasing order of preference; the index is the C kernel id. A CPU runs
    /// "portable" plus the sets of its architecture: "ssse3"/"avx2" on x86-64, "neon" on AArch64.
    static let names = ["portable", "ssse3", "avx2", "neon"]

    /// C kernel id for `name` if this CPU can run it, else nil.
    static func id(named name: String) -> Int32? {
        guard let i = names.firstIndex(of: name), pf_fec_kernel_supported(Int32(i)) != 0 else { return nil }
        return Int32(i)
    }

    /// Kernel names this CPU can run, slowest first.
    static var supported: [String] {
        names.indices.filter { pf_fec_kernel_supported(Int32($0)) != 0 }.map { names[$0] }
    }

    static func name(of id: Int32) -> String {
        String(cString: pf_fec_kernel_name(id))
    }
}
