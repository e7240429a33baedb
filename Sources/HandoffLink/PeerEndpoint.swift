import HandoffCore
import NIOCore

extension PeerEndpoint {
    init?(socketAddress: SocketAddress) {
        guard let ip = socketAddress.ipAddress, let port = socketAddress.port else { return nil }
        self.init(host: ip, port: port)
    }
}
