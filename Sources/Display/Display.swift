/// `Display` — the KMS presenter (DRM atomic API, planes, the page-flip pacer) that puts decoded
/// frames on glass. Layer: media subsystem (above PunktfunkSession, beside VideoDecode).
public enum Display {}
