/// Every control operation, in one list: what each door (the control socket, D-Bus) must serve,
/// checked by the tests (a door that lacks one fails them).
public enum ControlOperationTable {
    public static let all: [any ControlOperation.Type] = [
        StatusRequest.self, PeersRequest.self, TrustRequest.self, PairRequest.self, PairAcceptRequest.self, PairConfirmRequest.self,
        UnpairRequest.self, ConnectRequest.self, DisconnectRequest.self, RotateAdvertRequest.self,
        ActivitiesRequest.self, PublishRequest.self, ResignRequest.self, InvalidateRequest.self, RefreshRequest.self,
        ContinueRequest.self, SendRequest.self, HandleRequest.self, HandledRequest.self, WatchRequest.self,
        ScenesRequest.self, SceneRequest.self, SceneConnectRequest.self, SceneUpdateRequest.self, SceneLaunchedRequest.self,
        SceneDisconnectRequest.self, SceneDestroyRequest.self, DeleteSavedRequest.self,
        SearchRequest.self, SearchOpenRequest.self,
        StreamOpenRequest.self, StreamAcceptRequest.self, StreamRefuseRequest.self, AppsRequest.self,
        ClipboardStatusRequest.self, ClipboardCopyRequest.self, ClipboardPasteRequest.self, ClipboardSwitchRequest.self,
        ClipboardAgentRequest.self
    ]

    public static var names: [String] { all.map { $0.name } }
}
