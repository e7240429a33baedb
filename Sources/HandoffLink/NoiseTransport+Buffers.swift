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

    /// Opens a frame's readable bytes (ciphertext, then the tag) into a new buffer.
    public mutating func open(_ frame: ByteBuffer, allocator: ByteBufferAllocator) throws(NoiseError) -> ByteBuffer {
        guard frame.readableBytes >= 16 else { throw .decryptFailed }
        let plain = try receive.withNextNonce(failing: .decryptFailed) { key, nonce in
            try frame.withUnsafeReadableBytes { raw in
                let split = raw.count - 16
                let box = try ChaChaPoly.SealedBox(
                    nonce: nonce, ciphertext: UnsafeRawBufferPointer(rebasing: raw[..<split]), tag: UnsafeRawBufferPointer(rebasing: raw[split...]))
                return try ChaChaPoly.open(box, using: key)
            }
        }
        var out = allocator.buffer(capacity: plain.count)
        plain.withUnsafeBytes { _ = out.writeBytes($0) }
        return out
    }
}
