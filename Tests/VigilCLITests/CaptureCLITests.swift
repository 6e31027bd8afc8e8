import Foundation
import Testing
import VigilDocument
import VigilFace
import VigilSynth

/// `vigil capture` against a running `vigil serve`: one JSON line per state, exit codes.
@Suite(.serialized) struct CaptureCLITests {
    static func lines(_ run: CLITests.Run) -> [[String: Any]] {
        String(decoding: run.stdout, as: UTF8.self).split(separator: "\n")
            .compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    @Test func aRecordedPhotoSessionIsCapturedAndFailsWithASignedResultExitOne() throws {
        let data = ServeCLITests.temporaryData()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let served = try ServeCLITests.Served(data: data, extra: ["--demo"])
        defer { _ = served.stop(SIGTERM) }
        let key = try #require((served.started["demoTenant"] as? [String: Any])?["apiKey"] as? String)
        let (status, session) = ServeCLITests.http("POST", served.base + "/v1/sessions", bearer: key, json: ["riskLevel": "free"])
        #expect(status == 201)
        let id = try #require(session["sessionId"] as? String), token = try #require(session["sessionToken"] as? String)
        // A recording made for another plan: a still, tilted photo.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-capture-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let synth = try CLITests.run(["synth", "session", "--photo", "\(CLITests.fixtures)/obama.jpg", "--species", "photoTilted",
                                      "--risk", "free", "--seed", "5", "--out", dir])
        #expect(synth.status == 0, "\(synth.stderr)")
        let run = try CLITests.run(["capture", "--server", served.base, "--session-id", id, "--token", token, "--frames", dir])
        let states = Self.lines(run)
        #expect(run.status == 1, "\(run.stderr) \(states)")
        #expect(states.first?["state"] as? String == "loading" && states.count == 2)
        #expect(states.last?["state"] as? String == "success" && states.last?["outcome"] as? String == "failed")
        #expect((states.last?["signedResult"] as? String)?.split(separator: ".").count == 3)
    }

    /// The synthetic person rendered live, at camera pace, following what the server asks.
    @Test func aSyntheticPersonFollowingTheServerPassesAndATiltedPrintFailsAtLow() throws {
        let data = ServeCLITests.temporaryData()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let served = try ServeCLITests.Served(data: data, extra: ["--demo"])
        defer { _ = served.stop(SIGTERM) }
        let key = try #require((served.started["demoTenant"] as? [String: Any])?["apiKey"] as? String)
        func capture(_ species: String, seed: Int) throws -> (status: Int32, states: [[String: Any]]) {
            let (_, session) = ServeCLITests.http("POST", served.base + "/v1/sessions", bearer: key, json: ["riskLevel": "low"])
            let id = try #require(session["sessionId"] as? String), token = try #require(session["sessionToken"] as? String)
            let run = try CLITests.run(["capture", "--server", served.base, "--session-id", id, "--token", token, "--synthetic", species,
                                        "--photo", "\(CLITests.fixtures)/obama.jpg", "--seed", String(seed)])
            return (run.status, Self.lines(run))
        }
        var live = try capture("live", seed: 1)
        for seed in 2...3 where live.status != 0 {   // live sessions have a measured BPCER: another person may try
            print("synthetic live capture rejected, trying another: \(live.states.last ?? [:])")
            live = try capture("live", seed: seed)
        }
        #expect(live.status == 0 && live.states.last?["outcome"] as? String == "passed", "\(live.states)")
        let print = try capture("photoTilted", seed: 1)
        #expect(print.status == 1 && print.states.last?["outcome"] as? String == "failed", "\(print.states)")
    }

    /// The document first (`--document`), then the live person; the success line carries the
    /// document read from the signed result.
    @Test func aDocumentThenTheLivePersonAreCapturedAndTheDocumentIsInTheResult() throws {
        let data = ServeCLITests.temporaryData()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let served = try ServeCLITests.Served(data: data, extra: ["--demo"])
        defer { _ = served.stop(SIGTERM) }
        let key = try #require((served.started["demoTenant"] as? [String: Any])?["apiKey"] as? String)
        let fields = MRZComposer.Fields(documentCode: "I", issuingState: "UTO", documentNumber: "D23145890", surname: "OBAMA", givenNames: "BARACK",
                                        nationality: "UTO", dateOfBirth: MRZDate(year: 1961, month: 8, day: 4),
                                        expiryDate: MRZDate(year: MRZDate.today.year + 4, month: 1, day: 20), sex: "M", optionalData: "")
        let portrait = try Image(contentsOf: URL(fileURLWithPath: "\(CLITests.fixtures)/obama.jpg"))
        let page = try SpecimenDocument(format: .td1, fields: fields).render(width: 1500, portrait: portrait)
        let jpeg = try page.image().jpegData(quality: 90)
        let document = try CLITests.temporaryFile(Data(jpeg), suffix: ".jpg")
        defer { try? FileManager.default.removeItem(atPath: document) }
        func capture(seed: Int, document: String?) throws -> (status: Int32, states: [[String: Any]]) {
            let policy: [String: Any] = ["count": 1, "motions": ["turnLeft", "turnRight"], "document": ["types": ["idCard"]]]
            let (_, session) = ServeCLITests.http("POST", served.base + "/v1/sessions", bearer: key, json: ["policy": policy])
            let id = try #require(session["sessionId"] as? String), token = try #require(session["sessionToken"] as? String)
            let run = try CLITests.run(["capture", "--server", served.base, "--session-id", id, "--token", token, "--synthetic", "live",
                                        "--photo", "\(CLITests.fixtures)/obama.jpg", "--seed", String(seed)] + (document.map { ["--document", $0] } ?? []))
            return (run.status, Self.lines(run))
        }
        var live = try capture(seed: 1, document: document)
        for seed in 2...3 where live.status != 0 {   // live sessions have a measured BPCER: another person may try
            print("synthetic live capture rejected, trying another: \(live.states.last ?? [:])")
            live = try capture(seed: seed, document: document)
        }
        #expect(live.status == 0, "\(live.states)")
        // The device's result has the document's type, checks and face match; what identifies the
        // person goes to the tenant's backend only.
        let read = try #require(live.states.last?["document"] as? [String: Any])
        #expect(read["type"] as? String == "TD1" && read["surname"] == nil && read["documentNumber"] == nil)
        #expect((read["face"] as? [String: Any])?["matched"] as? Bool == true, "\(read)")
        // Without the photo the session cannot start, and says why.
        let missing = try capture(seed: 1, document: nil)
        #expect(missing.status == 2 && missing.states.last?["error"] as? String == "documentNotCaptured", "\(missing.states)")
        #expect(try CLITests.run(["capture", "--server", served.base, "--session-id", "s", "--token", "t", "--frames", "/tmp",
                                  "--document", "/nonexistent.jpg"]).status == 2)
    }

    @Test func badArgumentsAndABadTokenExitTwo() throws {
        #expect(try CLITests.run(["capture", "--server", "http://127.0.0.1:9"]).status == 2)
        #expect(try CLITests.run(["capture", "--server", "http://127.0.0.1:9", "--session-id", "s", "--token", "t",
                                  "--frames", "/nonexistent", "--y4m", "/x"]).status == 2)
        #expect(try CLITests.run(["capture", "--server", "http://127.0.0.1:9", "--session-id", "s", "--token", "t", "--frames", "/nonexistent"]).status == 2)
        let notVideo = try CLITests.temporaryFile(Data("hello".utf8), suffix: ".y4m")
        defer { try? FileManager.default.removeItem(atPath: notVideo) }
        #expect(try CLITests.run(["capture", "--server", "http://127.0.0.1:9", "--session-id", "s", "--token", "t", "--y4m", notVideo]).status == 2)
        for synthetic in [["--synthetic", "live"], ["--synthetic", "dragon", "--photo", notVideo], ["--synthetic", "reorderedFrames", "--photo", notVideo],
                          ["--synthetic", "live", "--photo", notVideo], ["--synthetic", "live", "--frames", "/tmp"]] {
            #expect(try CLITests.run(["capture", "--server", "http://127.0.0.1:9", "--session-id", "s", "--token", "t"] + synthetic).status == 2,
                    "\(synthetic)")
        }
    }

    #if os(Linux)
    /// Starts `arguments` as a child traced with `PTRACE_TRACEME` (a debugger attached from the
    /// first instruction), continuing it through its stops, in Debian's Python.
    static let traced = """
        import ctypes, os, sys
        libc = ctypes.CDLL(None, use_errno=True)
        libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
        pid = os.fork()
        if pid == 0:
            libc.ptrace(0, 0, None, None)
            os.execv(sys.argv[1], sys.argv[1:])
        os.waitpid(pid, 0)
        libc.ptrace(7, pid, None, None)
        while True:
            _, status = os.waitpid(pid, 0)
            if os.WIFEXITED(status): sys.exit(os.WEXITSTATUS(status))
            if os.WIFSIGNALED(status): sys.exit(128 + os.WTERMSIG(status))
            sig = os.WSTOPSIG(status)
            libc.ptrace(7, pid, None, ctypes.c_void_p(0 if sig == 5 else sig))
        """

    /// The device checks on real processes: under a debugger and with a preloaded library the
    /// capture stops with `securityException` before anything is sent; a clean run sees neither.
    @Test func aTracedOrPreloadedCaptureStopsBeforeSendingAndACleanOneDoesNot() throws {
        let data = ServeCLITests.temporaryData()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let served = try ServeCLITests.Served(data: data, extra: ["--demo"])
        defer { _ = served.stop(SIGTERM) }
        let key = try #require((served.started["demoTenant"] as? [String: Any])?["apiKey"] as? String)
        let (_, session) = ServeCLITests.http("POST", served.base + "/v1/sessions", bearer: key, json: ["riskLevel": "low"])
        let id = try #require(session["sessionId"] as? String), token = try #require(session["sessionToken"] as? String)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-security-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(#"{"frames":[{"file":"missing.jpg","timestampMs":0}]}"#.utf8).write(to: dir.appendingPathComponent("session.json"))
        let capture = ["capture", "--server", served.base, "--session-id", id, "--token", token, "--frames", dir.path]
        let script = try CLITests.temporaryFile(Data(Self.traced.utf8), suffix: ".py")
        defer { try? FileManager.default.removeItem(atPath: script) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, CLITests.binary.path] + capture
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let tracedOut = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let tracedStates = Self.lines(CLITests.Run(status: process.terminationStatus, stdout: tracedOut, stderr: ""))
        #expect(process.terminationStatus == 2)
        #expect(tracedStates.last?["error"] as? String == "securityException")
        #expect((tracedStates.last?["detail"] as? String)?.contains("TracerPid") == true, "\(tracedStates)")

        let preloaded = try CLITests.run(capture, environment: ["LD_PRELOAD": "/lib/x86_64-linux-gnu/libm.so.6"])
        #expect(preloaded.status == 2 && (Self.lines(preloaded).last?["detail"] as? String)?.contains("LD_PRELOAD") == true)
        // Nothing reached the server.
        #expect(ServeCLITests.http("GET", served.base + "/v1/client/session", bearer: token).1["status"] as? String == "created")

        let clean = try CLITests.run(capture)
        #expect(Self.lines(clean).last?["error"] as? String != "securityException", "\(Self.lines(clean))")
    }
    #endif
}
