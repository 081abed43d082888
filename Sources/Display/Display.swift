/// `Display` — the KMS backend of the `Screen` seam: the DRM atomic presenter, planes, the
/// page-flip pacer, hot-plug and VT handling that put decoded frames on glass from a TTY
/// (`KMSScreen`). Layer: media subsystem (above PunktfunkSession, beside VideoDecode).
/// The seam's types are re-exported: every user of the KMS code speaks them.
@_exported import Screen

public enum Display {}
