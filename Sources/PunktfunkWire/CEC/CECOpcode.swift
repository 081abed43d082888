/// CEC opcodes this box sends or understands (HDMI 1.4b Supplement 1 "CEC", §CEC 15 "Message
/// Descriptions" and Table 29; the same values as `CEC_MSG_*` in linux/cec.h). Anything else
/// is kept as `CECMessage.other` and answered with a Feature Abort when it was directed to us.
public enum CECOpcode {
    public static let featureAbort: UInt8 = 0x00
    public static let imageViewOn: UInt8 = 0x04
    public static let textViewOn: UInt8 = 0x0D
    public static let standby: UInt8 = 0x36
    public static let userControlPressed: UInt8 = 0x44
    public static let userControlReleased: UInt8 = 0x45
    public static let giveOSDName: UInt8 = 0x46
    public static let setOSDName: UInt8 = 0x47
    public static let routingChange: UInt8 = 0x80
    public static let routingInformation: UInt8 = 0x81
    public static let activeSource: UInt8 = 0x82
    public static let givePhysicalAddress: UInt8 = 0x83
    public static let reportPhysicalAddress: UInt8 = 0x84
    public static let requestActiveSource: UInt8 = 0x85
    public static let setStreamPath: UInt8 = 0x86
    public static let deviceVendorID: UInt8 = 0x87
    public static let giveDeviceVendorID: UInt8 = 0x8C
    public static let menuRequest: UInt8 = 0x8D
    public static let menuStatus: UInt8 = 0x8E
    public static let giveDevicePowerStatus: UInt8 = 0x8F
    public static let reportPowerStatus: UInt8 = 0x90
    public static let inactiveSource: UInt8 = 0x9D
    public static let cecVersion: UInt8 = 0x9E
    public static let getCECVersion: UInt8 = 0x9F
    public static let abort: UInt8 = 0xFF
}

/// Logical addresses (CEC 10.2, Table 5) the box cares about.
public enum CECLogicalAddress {
    public static let tv: UInt8 = 0
    public static let playback1: UInt8 = 4
    public static let playback2: UInt8 = 8
    public static let playback3: UInt8 = 11
    /// As initiator: unregistered; as destination: broadcast.
    public static let unregistered: UInt8 = 15
    public static let broadcast: UInt8 = 15
}

/// [Feature Abort] reasons (CEC 17, "Abort Reason").
public enum CECAbortReason {
    public static let unrecognizedOpcode: UInt8 = 0
    public static let notInCorrectMode: UInt8 = 1
    public static let cannotProvideSource: UInt8 = 2
    public static let invalidOperand: UInt8 = 3
    public static let refused: UInt8 = 4
    public static let unableToDetermine: UInt8 = 5
}

/// [Power Status] (CEC 17).
public enum CECPowerStatus {
    public static let on: UInt8 = 0
    public static let standby: UInt8 = 1
    public static let inTransitionToOn: UInt8 = 2
    public static let inTransitionToStandby: UInt8 = 3
}

/// [CEC Version] (CEC 17): 1.3a = 4, 1.4 = 5, 2.0 = 6.
public enum CECVersion {
    public static let v1_3a: UInt8 = 4
    public static let v1_4: UInt8 = 5
    public static let v2_0: UInt8 = 6
}

/// [Device Type] of <Report Physical Address> (CEC 17).
public enum CECDeviceType {
    public static let tv: UInt8 = 0
    public static let recordingDevice: UInt8 = 1
    public static let tuner: UInt8 = 3
    public static let playbackDevice: UInt8 = 4
    public static let audioSystem: UInt8 = 5
}

/// [Menu Request Type] and [Menu State] (CEC 17).
public enum CECMenu {
    public static let activate: UInt8 = 0
    public static let deactivate: UInt8 = 1
    public static let query: UInt8 = 2
    public static let activated: UInt8 = 0
    public static let deactivated: UInt8 = 1
}
