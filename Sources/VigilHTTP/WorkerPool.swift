import CMicroHTTPD
import Foundation

/// Threads that answer the routes of one lane (`Router.Lane`), so that the HTTP threads keep
/// reading and answering everything else (health checks, polls, refusals) while frames are
/// analysed. Jobs run in arrival order; each job's request carries when it arrived
/// (`receivedAt`), so a handler knows how long it waited.
final class WorkerPool: @unchecked Sendable {
    // Invariant: `jobs`, `head`, `stopping`, `running` and `busy` are only touched with
    // `condition` locked.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var stopping = false
    private var running = 0
    private var busy = 0
    private let maxQueued: Int?
    private let niceness: Int32

    /// Starts `count` threads named `name-N`, `niceness` steps below the HTTP threads; with
    /// `maxQueued`, no more jobs than that wait (`submit` refuses the next).
    init(threads count: Int, name: String = "vigil-worker", niceness: Int32 = WorkerPool.niceness, maxQueued: Int? = nil) {
        self.maxQueued = maxQueued
        self.niceness = niceness
        for index in 0..<max(1, count) {
            let thread = Thread { [self] in work() }
            thread.name = "\(name)-\(index)"
            running += 1
            thread.start()
        }
    }

    /// Queues `job`; false (nothing queued) when `maxQueued` jobs already wait.
    @discardableResult
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if let maxQueued, jobs.count - head >= maxQueued { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Jobs waiting for a thread.
    var queued: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head
    }

    /// Jobs waiting or running.
    var load: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head + busy
    }

    /// Lets queued jobs finish, then ends the threads (they hold no reference once ended).
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }

    /// How much lower than the HTTP threads' the workers' scheduling priority is (Linux `nice`
    /// steps, per thread): when the cores are full, reading requests and refusing what the server
    /// has no room for come before analysing more frames.
    static let niceness: Int32 = 5
    /// The background lane's: below the workers, so that a document read takes what frames
    /// leave of the cores (each step is about 1.25 times less CPU share when they compete).
    static let backgroundNiceness: Int32 = 10

    private func work() {
        vh_lower_thread_priority(niceness)
        condition.lock()
        while true {
            while head == jobs.count, !stopping { condition.wait() }
            if head == jobs.count {
                running -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let job = jobs[head]
            head += 1
            if head == jobs.count || head > 1024 {
                // Drop what was taken, now and then, so the array does not grow forever.
                jobs.removeFirst(head)
                head = 0
            }
            busy += 1
            condition.unlock()
            job()
            condition.lock()
            busy -= 1
        }
    }
}
