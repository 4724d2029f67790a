import ArgumentParser
import Foundation

/// Runs by hand as root on the service's folders. A root run in a snapshots
/// folder that belongs to the service user leaves root-owned files behind
/// (a `.lock` once failed every later night with 73), so it is refused,
/// naming the command to run instead, unless `--as-owner` asks to become
/// the folder's owner first (a root cron or an operator's habit).
enum ServiceUser {
    /// Why a root run must not go on in `folder`, with what to run; nil for
    /// a run that is not root, or a folder root owns or that is not there yet.
    static func refusal(snapshots folder: String, euid: uid_t = geteuid()) -> String? {
        guard euid == 0, let owner = owner(of: folder), owner.uid != 0 else { return nil }
        let name = owner.name ?? "uid \(owner.uid)"
        let arguments = CommandLine.arguments.dropFirst().map(Self.shellQuoted).joined(separator: " ")
        return "the snapshots folder \(folder) belongs to \(name), and a run as root would leave files \(name) cannot change: "
            + "run as \(name): sudo -u \(owner.name ?? "#\(owner.uid)") ingest \(arguments) (or add --as-owner)"
    }

    /// Exit 64 with the refusal, for the subcommands that write the folder.
    static func require(snapshots folder: String) throws {
        if let refusal = refusal(snapshots: folder) {
            printError("ingest: \(refusal)")
            throw ExitStatus.usage.exitCode
        }
    }

    /// Becomes the folder's owner (groups, group, user: the order that
    /// leaves no way back). Before any file is opened or thread started.
    static func become(ownerOf folder: String) throws {
        guard geteuid() == 0, let owner = owner(of: folder), owner.uid != 0 else { return }
        guard setgroups(0, nil) == 0, setgid(owner.gid) == 0, setuid(owner.uid) == 0 else {
            printError("ingest: --as-owner: cannot become uid \(owner.uid): \(String(cString: strerror(errno)))")
            throw ExitStatus.usage.exitCode
        }
    }

    private static func owner(of folder: String) -> (uid: uid_t, gid: gid_t, name: String?)? {
        var info = stat()
        guard stat(folder, &info) == 0 else { return nil }
        let name = getpwuid(info.st_uid).flatMap { $0.pointee.pw_name.map { String(cString: $0) } }
        return (info.st_uid, info.st_gid, name)
    }

    private static func shellQuoted(_ argument: String) -> String {
        guard argument.isEmpty || argument.contains(where: { !($0.isLetter || $0.isNumber || "-_./=:,@%+".contains($0)) }) else { return argument }
        return "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
