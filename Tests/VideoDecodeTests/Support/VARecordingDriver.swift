import Foundation
import Testing
import VideoDecode

/// The VA recording driver (Tests/Support/VARecordingDriver, a test fake) built for this test
/// process and loaded through libva: `LIBVA_DRIVERS_PATH` / `LIBVA_DRIVER_NAME=varecord` are set
/// for the whole process before any display initialises.
enum VARecordingDriver {
    /// The driver library, or why it is unavailable.
    /// Written once (lazy static initialisation is thread-safe); the handle is only read.
    nonisolated(unsafe) static let library: Result<(path: String, handle: UnsafeMutableRawPointer), DriverError> = {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Support/VARecordingDriver/build.sh").standardizedFileURL
        let out = FileManager.default.temporaryDirectory
            .appendingPathComponent("varecord-\(ProcessInfo.processInfo.processIdentifier)")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = [source.path, out.path]
        let err = Pipe()
        p.standardError = err
        do { try p.run() } catch { return .failure(DriverError(description: "cannot run \(source.path): \(error)")) }
        p.waitUntilExit()
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard p.terminationStatus == 0 else { return .failure(DriverError(description: "build.sh failed: \(log)")) }
        let path = out.appendingPathComponent("varecord_drv_video.so").path
        setenv("LIBVA_DRIVERS_PATH", out.path, 1)
        setenv("LIBVA_DRIVER_NAME", "varecord", 1)
        // Kept open for the process: libva's own dlopen/dlclose then never unloads it.
        guard let handle = dlopen(path, RTLD_NOW | RTLD_GLOBAL) else {
            return .failure(DriverError(description: "dlopen: \(String(cString: dlerror()))"))
        }
        return .success((path, handle))
    }()

    static let isAvailable: Bool = { if case .success = library { true } else { false } }()
    static let skipReason: Comment = "needs cc and the libva-dev headers to build the VA recording driver"

    struct DriverError: Error, CustomStringConvertible { var description: String }

    /// A fake device: a temp file holding the driver's configuration, whose record the driver
    /// writes next to it.
    final class Device {
        let path: String
        var recordPath: String { path + ".record" }

        init(config: [String: String] = [:]) {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("varecord-\(UUID().uuidString).dev").path
            let text = config.map { "\($0.key)=\($0.value)\n" }.joined()
            FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        }

        deinit {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: recordPath)
        }

        /// A libva display on this device, initialised through libva's loader.
        func connect() throws -> VADisplayConnection {
            let (_, handle) = try VARecordingDriver.library.get()
            guard let symbol = dlsym(handle, "varec_display_for_fd") else { throw DriverError(description: "no varec_display_for_fd") }
            typealias Make = @convention(c) (Int32) -> UnsafeMutableRawPointer?
            let make = unsafeBitCast(symbol, to: Make.self)
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0, let display = make(fd) else { throw DriverError(description: "no display for \(path)") }
            return try VADisplayConnection.adopt(display: display, fd: fd, path: path)
        }

        func record() throws -> [Entry] { Entry.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: recordPath)))) }
    }

    /// One record entry (see va_recording_driver.c).
    struct Entry {
        enum Kind: UInt32 {
            case createConfig = 1, createSurfaces, createContext, beginPicture, render, endPicture, syncSurface,
                 export, destroyBuffer, createBuffer, destroySurfaces, destroyContext, renderCall
        }
        var kind: Kind
        var context: UInt32, surface: UInt32, bufferType: UInt32, elementSize: UInt32, numElements: UInt32
        var payload: [UInt8]

        static func parse(_ bytes: [UInt8]) -> [Entry] {
            func u32(_ at: Int) -> UInt32 {
                UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
            }
            var out: [Entry] = []
            var at = 0
            while at + 32 <= bytes.count, u32(at) == 0x4345_5256 {
                let n = Int(u32(at + 28))
                guard at + 32 + n <= bytes.count, let kind = Kind(rawValue: u32(at + 4)) else { break }
                out.append(Entry(kind: kind, context: u32(at + 8), surface: u32(at + 12), bufferType: u32(at + 16),
                                 elementSize: u32(at + 20), numElements: u32(at + 24),
                                 payload: Array(bytes[(at + 32)..<(at + 32 + n)])))
                at += 32 + n
            }
            return out
        }

        /// The payload as a C struct (the driver checked its size against the same header).
        func load<T>(_ type: T.Type) -> T? {
            guard payload.count >= MemoryLayout<T>.size else { return nil }
            return payload.withUnsafeBytes { $0.loadUnaligned(as: T.self) }
        }
    }
}
