import ArgumentParser
import Foundation

/// One sentence on stderr and exit status 1: for what goes wrong before the application runs.
func failure(_ sentence: String, code: Int32 = 1) -> ExitCode {
    FileHandle.standardError.write(Data("punktfunk-kiosk: \(sentence)\n".utf8))
    return ExitCode(code)
}
