import FFmpegOracle
import Testing

extension FFmpeg {
    static let skipReason: Comment = "needs ffmpeg with libx265 on PATH"
}
