import CMicroHTTPD
import Foundation

/// Threads that answer the routes registered `offloaded`, so that the HTTP threads keep reading
/// and answering everything else (health checks, polls, refusals) while frames are analysed.
/// Jobs run in arrival order; each job's request carries when it arrived (`receivedAt`), so a
/// handler knows how long it waited.
final class WorkerPool: @unchecked Sendable {
    // Invariant: `jobs`, `head`, `stopping` and `running` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var head = 0
    private var stopping = false
    private var running = 0

    /// Starts `count` threads.
    init(threads count: Int) {
        for index in 0..<max(1, count) {
            let thread = Thread { [self] in work() }
            thread.name = "vigil-worker-\(index)"
            running += 1
            thread.start()
        }
    }

    /// Queues `job`.
    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Jobs waiting for a thread.
    var queued: Int {
        condition.lock()
        defer { condition.unlock() }
        return jobs.count - head
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

    private func work() {
        vh_lower_thread_priority(Self.niceness)
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
            condition.unlock()
            job()
            condition.lock()
        }
    }
}
