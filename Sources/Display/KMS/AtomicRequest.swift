internal import CDRM
#if canImport(Glibc)
import Glibc
#endif

/// One atomic request (`drmModeAtomicReq`), owned: `deinit` frees it.
///
/// Adding a property records a sticky failure (wlroots' pattern): the first failed add is kept
/// and reported once by `test` / `commit`. `test` borrows the request (TEST_ONLY leaves it usable,
/// a failure there changes nothing on screen); `commit` consumes it — after a commit the
/// request's ownership has moved to the kernel's state, successful or not.
struct AtomicRequest: ~Copyable {
    private let request: OpaquePointer
    private(set) var failed: KMSError?

    init() throws(KMSError) {
        guard let r = drmModeAtomicAlloc() else { throw .ioctl("drmModeAtomicAlloc", errno: ENOMEM) }
        request = r
    }

    deinit { drmModeAtomicFree(request) }

    /// Adds `object.property = value`. A nil property (the driver lacks it) is skipped when the
    /// value is 0 and recorded as a failure otherwise (weston's "zero ok" rule).
    mutating func add(_ object: UInt32, _ property: PropertyInfo?, _ value: UInt64, name: String = "") {
        guard failed == nil else { return }
        guard let property else {
            if value != 0 { failed = .missingProperty(object: object, name: name) }
            return
        }
        if drmModeAtomicAddProperty(request, object, property.id, value) < 0 {
            failed = .ioctl("drmModeAtomicAddProperty(\(property.name))", errno: ENOMEM)
        }
    }

    /// Adds a property by name from an object's property map.
    mutating func add(_ props: ObjectProperties, _ name: String, _ value: UInt64) {
        add(props.object, props[name], value, name: name)
    }

    /// TEST_ONLY commit with `flags` (e.g. ALLOW_MODESET); throws when the kernel would refuse it.
    func test(on device: DRMDevice, flags: UInt32 = 0) throws(KMSError) {
        if let failed { throw failed }
        let rc = drmModeAtomicCommit(device.fd, request, flags | UInt32(DRM_MODE_ATOMIC_TEST_ONLY), nil)
        if rc != 0 { throw .commitFailed(errno: errno, testOnly: true) }
    }

    /// The real commit. With `DRM_MODE_PAGE_FLIP_EVENT` the kernel sends one flip event per CRTC
    /// in the request when it latches.
    consuming func commit(on device: DRMDevice, flags: UInt32) throws(KMSError) {
        if let failed { throw failed }
        let rc = drmModeAtomicCommit(device.fd, request, flags, nil)
        if rc != 0 { throw .commitFailed(errno: errno, testOnly: false) }
    }
}

/// Atomic commit flags (drm_mode.h), spelled once.
enum CommitFlags {
    static let pageFlipEvent = UInt32(DRM_MODE_PAGE_FLIP_EVENT)
    static let nonBlock = UInt32(DRM_MODE_ATOMIC_NONBLOCK)
    static let allowModeset = UInt32(DRM_MODE_ATOMIC_ALLOW_MODESET)
}
