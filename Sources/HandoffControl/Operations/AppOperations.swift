#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
import HandoffCore

/// `apps`: the installed apps (docs/APPS.md) and the files that could not be used, each problem
/// with its file and line.
public struct AppsRequest: ControlOperation {
    public typealias Result = Listing<AppInfo>
    public static let name = "apps"
    public init() {}
    public init(request: ControlRequest) throws(ControlError) {}
    public var arguments: [String: PropertyListValue] { [:] }
}

/// One declaration file: an app read from it (`name`, `types`, `launch`), or, when it could not
/// be used, its `problems` (`FILE:LINE: what`). A used app may have problems too (a type another
/// app declared first).
public struct AppInfo: ControlItem, Equatable {
    public var app: String
    public var name: String?
    public var file: String
    public var types: [String]
    public var launch: String?
    public var problems: [String]

    public init(app: String, name: String?, file: String, types: [String], launch: String?, problems: [String]) {
        (self.app, self.name, self.file, self.types, self.launch, self.problems) = (app, name, file, types, launch, problems)
    }

    public var object: PropertyListValue {
        var w = FieldWriter()
        w.set("app", app)
        w.set("name", name)
        w.set("file", file)
        w["types"] = .array(types.map(PropertyListValue.string))
        w.set("launch", launch)
        w["problems"] = .array(problems.map(PropertyListValue.string))
        return w.object
    }

    public init(object: PropertyListValue) throws(ControlError) {
        let f = try Fields(object)
        self.init(
            app: try f.string("app"), name: try f.optionalString("name"), file: try f.string("file"), types: try f.strings("types"),
            launch: try f.optionalString("launch"), problems: try f.strings("problems"))
    }
}
