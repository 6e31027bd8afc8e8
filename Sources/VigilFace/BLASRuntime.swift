import CDlibFace
import Synchronization

/// The BLAS that dlib's detector, shape predictor and ResNet call, as the process loaded it.
///
/// Debian's `libopenblas0-serial` is built without locking: two threads calling it at once can be
/// handed the same work buffer, and about 1 in 400 detections or descriptors came out different
/// from a serial run. Analysis therefore runs one call at a time when that variant is loaded, and
/// in parallel with a reference BLAS or the threaded OpenBLAS (`libopenblas0-pthread`).
public enum BLASRuntime {
    /// Whether several threads may call the BLAS at once. Reading it first pins OpenBLAS to one
    /// thread per call: Vigil runs its analyzers in parallel itself.
    public static let isThreadSafe = vf_blas_prepare() != 0

    private static let lock = Mutex(())

    /// Runs `body`, which calls into dlib, alone in the process when the BLAS is not thread-safe.
    static func exclusive<T>(_ body: () -> T) -> T {
        isThreadSafe ? body() : lock.withLock { _ in body() }
    }
}
