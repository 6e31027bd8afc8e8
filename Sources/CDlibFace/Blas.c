// Looks OpenBLAS up at run time: the package links libblas.so.3, which Debian's alternatives
// point at OpenBLAS or at the reference BLAS, and only OpenBLAS has these entry points.
#define _GNU_SOURCE
#include "CDlibFace.h"
#include <dlfcn.h>

int vf_blas_prepare(void) {
    int (*get_parallel)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_parallel");
    void (*set_threads)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    if (!get_parallel) return 1;
    if (set_threads) set_threads(1);
    // 0: built without threads. Debian builds that variant without USE_LOCKING, so two threads
    // can be handed the same work buffer (measured: about 1 in 400 detections differs).
    return get_parallel() > 0 ? 1 : 0;
}
