@preconcurrency import Crypto
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import NIOCore

/// Transport frames sealed and opened straight from and into NIO buffers: the session's bytes
/// are handed to ChaChaPoly where they lie, and its output is copied once into the buffer that
/// goes to the socket (the `[UInt8]` path copied each frame three more times on each side, which
/// showed as a sixth of a daemon's time during a stream).
extension NoiseTransport {
    /// Seals `plaintext`'s readable bytes into a new buffer: ciphertext, then the tag.
    public mutating func seal(_ plaintext: ByteBuffer, allocator: ByteBufferAllocator) throws(NoiseError) -> ByteBuffer {
        let size = plaintext.readableBytes
        guard size + 16 <= NoiseHandshake.maxMessage else { throw .messageTooLong(size + 16) }
        let box = try send.withNextNonce(failing: .malformedMessage("encryption failed")) { key, nonce in
            try plaintext.withUnsafeReadableBytes { try ChaChaPoly.seal($0, using: key, nonce: nonce) }
        }
        var out = allocator.buffer(capacity: size + 16)
        box.ciphertext.withUnsafeBytes { _ = out.writeBytes($0) }
        box.tag.withUnsafeBytes { _ = out.writeBytes($0) }
        return out
    }

    /// Opens a frame's readable bytes (ciphertext, then the tag) into a new buffer. The sealed box
    /// is made from one buffer, nonce || ciphertext || tag, filled with two copies: the box's
    /// initialiser from the three parts joins them with `Data`'s generic `+`, which was half of
    /// opening a push (docs/PERFORMANCE.md).
    public mutating func open(_ frame: ByteBuffer, allocator: ByteBufferAllocator) throws(NoiseError) -> ByteBuffer {
        guard frame.readableBytes >= 16 else { throw .decryptFailed }
        let plain = try receive.withNextCounter(failing: .decryptFailed) { key, counter in
            var combined = Data(capacity: 12 + frame.readableBytes)
            NoiseCipherState.appendNonce(counter, to: &combined)
            frame.withUnsafeReadableBytes { combined.append($0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: $0.count) }
            return try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: combined), using: key)
        }
        var out = allocator.buffer(capacity: plain.count)
        plain.withUnsafeBytes { _ = out.writeBytes($0) }
        return out
    }
}
