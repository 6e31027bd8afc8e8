#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// The processor time the calling thread has used: what one core spent on a piece of work,
/// which, unlike wall time, does not count the waits for a core on a busy machine.
public enum ProcessorClock {
    /// The calling thread's processor time so far, in milliseconds.
    public static func threadMs() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
    }
}
