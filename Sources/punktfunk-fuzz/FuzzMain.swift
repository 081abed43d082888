import Foundation

// Two builds of one entry point:
// - with `-DFUZZING -sanitize=fuzzer` (Tests/tools/fuzz.sh) `main` hands control to libFuzzer's
//   driver, which calls the target named by PF_FUZZ_TARGET with generated inputs;
// - a plain build replays the files named on the command line through that target, which is how
//   a crash file from a fuzz run is reproduced under the debugger.
#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt
#endif

nonisolated(unsafe) var selectedTarget = FuzzTarget.controlStream

@main
struct FuzzMain {
    static func main() {
        let name = ProcessInfo.processInfo.environment["PF_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("set PF_FUZZ_TARGET to one of: \(names)\n".utf8))
            exit(2)
        }
        selectedTarget = target
        #if FUZZING
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            selectedTarget.run(size == 0 ? [] : Array(UnsafeBufferPointer(start: data!, count: size)))
            return 0
        })
        #else
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(1)
            }
            target.run(Array(data))
            print("\(target.rawValue): \(path) ok")
        }
        #endif
    }
}
