import PunktfunkWire

/// A TV remote's [UI Command]s as the keys of a keyboard (evdev codes), so the remote drives the
/// shell through `NavigationMapper` and the host through `InputMapper` like any keyboard. Pure.
///
/// | UI command (CEC 17) | key | shell | host |
/// |---|---|---|---|
/// | Select, Enter | Enter | confirm | VK_RETURN |
/// | Up/Down/Left/Right | arrows | move | arrows |
/// | Back/Exit | Esc | back | VK_ESCAPE (held 1 s: the in-stream menu) |
/// | 0…9 | digit row | digits (PIN pad) | VK_0…VK_9 |
/// | Clear | Backspace | erase | VK_BACK |
/// | Channel up/down | Page Up/Down | — | VK_PRIOR/VK_NEXT |
/// | Play, Pause, (Pause-)Play Function | Play/Pause | — | VK_MEDIA_PLAY_PAUSE |
/// | Stop | Stop | — | VK_MEDIA_STOP |
/// | Skip/Fast forward, Skip back/Rewind | Next/Previous song | — | VK_MEDIA_NEXT/PREV_TRACK |
/// | Root/Setup/Contents/Options menu | Menu | menu | opens the in-stream menu |
public enum CECRemoteKeys {
    /// evdev codes used here (linux/input-event-codes.h).
    public static let keyEsc: UInt16 = 1
    public static let keyBackspace: UInt16 = 14
    public static let keyEnter: UInt16 = 28
    public static let keyMenu: UInt16 = 139
    public static let keyPlayPause: UInt16 = 164
    public static let keyStop: UInt16 = 166
    public static let keyNextSong: UInt16 = 163
    public static let keyPreviousSong: UInt16 = 165

    /// Holding Back this long while streaming opens the in-stream menu, ns.
    public static let backHoldNs: UInt64 = 1_000_000_000

    /// The key of a UI command; nil: the command means nothing here.
    public static func evdevCode(_ command: UInt8) -> UInt16? {
        if let d = CECUserControl.digit(command) { return d == 0 ? 11 : UInt16(d + 1) }   // KEY_0 = 11, KEY_1 = 2
        switch command {
        case CECUserControl.select, CECUserControl.enter: return keyEnter
        case CECUserControl.up: return 103
        case CECUserControl.down: return 108
        case CECUserControl.left: return 105
        case CECUserControl.right: return 106
        case CECUserControl.back: return keyEsc
        case CECUserControl.clear: return keyBackspace
        case CECUserControl.channelUp: return 104
        case CECUserControl.channelDown: return 109
        case CECUserControl.play, CECUserControl.pause, CECUserControl.playFunction, CECUserControl.pausePlayFunction:
            return keyPlayPause
        case CECUserControl.stop: return keyStop
        case CECUserControl.skipForward, CECUserControl.fastForward: return keyNextSong
        case CECUserControl.skipBackward, CECUserControl.rewind: return keyPreviousSong
        case CECUserControl.rootMenu, CECUserControl.setupMenu, CECUserControl.contentsMenu, CECUserControl.mediaContextMenu:
            return keyMenu
        default: return nil
        }
    }

    /// The media keys' VKs (the remote only: a keyboard's media keys stay unmapped, as
    /// `EvdevKeyMap` is pinned to upstream's table).
    public static func mediaVK(_ code: UInt16) -> UInt8? {
        switch code {
        case keyPlayPause: 0xB3   // VK_MEDIA_PLAY_PAUSE
        case keyStop: 0xB2        // VK_MEDIA_STOP
        case keyNextSong: 0xB0    // VK_MEDIA_NEXT_TRACK
        case keyPreviousSong: 0xB1 // VK_MEDIA_PREV_TRACK
        default: nil
        }
    }

    /// A short name for logs ("up", "5", "select", "0x71").
    public static func name(_ command: UInt8) -> String {
        if let d = CECUserControl.digit(command) { return "\(d)" }
        switch command {
        case CECUserControl.select: return "select"
        case CECUserControl.up: return "up"
        case CECUserControl.down: return "down"
        case CECUserControl.left: return "left"
        case CECUserControl.right: return "right"
        case CECUserControl.back: return "back"
        case CECUserControl.enter: return "enter"
        case CECUserControl.clear: return "clear"
        case CECUserControl.play: return "play"
        case CECUserControl.pause: return "pause"
        case CECUserControl.stop: return "stop"
        case CECUserControl.rootMenu, CECUserControl.setupMenu, CECUserControl.contentsMenu, CECUserControl.mediaContextMenu:
            return "menu"
        default: return "0x" + String(command, radix: 16)
        }
    }
}
