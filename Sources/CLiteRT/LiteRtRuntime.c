// LiteRT's C runtime through dlopen. The declarations below are this file's own, written from
// LiteRT 2.3.0's public C API: every handle is opaque (a pointer), every status an int (0 is
// success), every index a size_t. `scripts/setup` pins the library's SHA-256 (THIRD-PARTY.md).
#include "CLiteRT.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void *handle;

// A tensor's element type and shape as the runtime writes it: a 7-bit rank and a stride flag
// share one 32-bit word, then 8 dimensions and 8 strides.
struct ranked_type {
    int element_type;
    unsigned rank : 7;
    unsigned has_strides : 1;
    int dimensions[8];
    unsigned strides[8];
};
_Static_assert(sizeof(struct ranked_type) == 72, "LiteRT 2.3.0 ranked tensor type is 72 bytes");

enum { float32_type = 1, cpu_accelerator = 1, host_memory_buffer = 1, lock_read = 0, lock_write = 1 };
enum { max_tensors = 8 };

static struct {
    int (*create_environment)(int, const void *, handle *);
    void (*destroy_environment)(handle);
    int (*create_model_from_file)(handle, const char *, handle *);
    void (*destroy_model)(handle);
    int (*num_model_signatures)(handle, size_t *);
    int (*model_signature)(handle, size_t, handle *);
    int (*num_signature_inputs)(handle, size_t *);
    int (*signature_input_tensor)(handle, size_t, handle *);
    int (*num_signature_outputs)(handle, size_t *);
    int (*signature_output_tensor)(handle, size_t, handle *);
    int (*ranked_tensor_type)(handle, struct ranked_type *);
    int (*create_options)(handle *);
    void (*destroy_options)(handle);
    int (*set_hardware_accelerators)(handle, int);
    int (*create_opaque_options)(const char *, void *, void (*)(void *), handle *);
    int (*add_opaque_options)(handle, handle);
    void (*destroy_opaque_options)(handle);
    int (*create_compiled_model)(handle, handle, handle, handle *);
    void (*destroy_compiled_model)(handle);
    int (*run_compiled_model)(handle, size_t, size_t, handle *, size_t, handle *);
    int (*create_managed_buffer)(handle, int, const struct ranked_type *, size_t, handle *);
    void (*destroy_buffer)(handle);
    int (*lock_buffer)(handle, void **, int);
    int (*unlock_buffer)(handle);
    int (*buffer_packed_size)(handle, size_t *);
} api;

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static void *library;

static void fail(char *error, size_t size, const char *format, ...) {
    if (!error || size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(error, size, format, args);
    va_end(args);
}

// The status names of LiteRT's C API for the codes a CPU run can give (the runtime exports no
// function that names them).
static const char *status_name(int status) {
    switch (status) {
    case 1: return "invalid argument";
    case 2: return "memory allocation failure";
    case 3: return "runtime failure";
    case 4: return "missing input tensor";
    case 5: return "unsupported";
    case 6: return "not found";
    case 500: return "file I/O error";
    case 501: return "invalid flatbuffer";
    case 502: return "dynamic loading error";
    case 504: return "compilation error";
    default: return "error";
    }
}

static int load(const char *path, char *error, size_t size) {
    pthread_mutex_lock(&load_lock);
    int ok = library != NULL;
    if (!ok) {
        void *opened = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!opened) {
            fail(error, size, "cannot load %s: %s", path, dlerror());
        } else {
            const char *missing = NULL;
#define RESOLVE(field, symbol)                                                  \
    if (!missing && !(*(void **)&api.field = dlsym(opened, symbol))) missing = symbol;
            RESOLVE(create_environment, "LiteRtCreateEnvironment")
            RESOLVE(destroy_environment, "LiteRtDestroyEnvironment")
            RESOLVE(create_model_from_file, "LiteRtCreateModelFromFile")
            RESOLVE(destroy_model, "LiteRtDestroyModel")
            RESOLVE(num_model_signatures, "LiteRtGetNumModelSignatures")
            RESOLVE(model_signature, "LiteRtGetModelSignature")
            RESOLVE(num_signature_inputs, "LiteRtGetNumSignatureInputs")
            RESOLVE(signature_input_tensor, "LiteRtGetSignatureInputTensorByIndex")
            RESOLVE(num_signature_outputs, "LiteRtGetNumSignatureOutputs")
            RESOLVE(signature_output_tensor, "LiteRtGetSignatureOutputTensorByIndex")
            RESOLVE(ranked_tensor_type, "LiteRtGetRankedTensorType")
            RESOLVE(create_options, "LiteRtCreateOptions")
            RESOLVE(destroy_options, "LiteRtDestroyOptions")
            RESOLVE(set_hardware_accelerators, "LiteRtSetOptionsHardwareAccelerators")
            RESOLVE(create_opaque_options, "LiteRtCreateOpaqueOptions")
            RESOLVE(add_opaque_options, "LiteRtAddOpaqueOptions")
            RESOLVE(destroy_opaque_options, "LiteRtDestroyOpaqueOptions")
            RESOLVE(create_compiled_model, "LiteRtCreateCompiledModel")
            RESOLVE(destroy_compiled_model, "LiteRtDestroyCompiledModel")
            RESOLVE(run_compiled_model, "LiteRtRunCompiledModel")
            RESOLVE(create_managed_buffer, "LiteRtCreateManagedTensorBuffer")
            RESOLVE(destroy_buffer, "LiteRtDestroyTensorBuffer")
            RESOLVE(lock_buffer, "LiteRtLockTensorBuffer")
            RESOLVE(unlock_buffer, "LiteRtUnlockTensorBuffer")
            RESOLVE(buffer_packed_size, "LiteRtGetTensorBufferPackedSize")
#undef RESOLVE
            if (missing) {
                fail(error, size, "%s does not export %s (expected LiteRT 2.3.0)", path, missing);
                dlclose(opened);
            } else {
                library = opened;
                ok = 1;
            }
        }
    }
    pthread_mutex_unlock(&load_lock);
    return ok;
}

struct tensor {
    handle buffer;
    size_t floats;
    struct ranked_type type;
};

struct vl_litert_model {
    handle environment, model, compiled;
    size_t input_count, output_count;
    struct tensor inputs[max_tensors], outputs[max_tensors];
};

static void close_model(vl_litert_model *m) {
    if (!m) return;
    for (size_t i = 0; i < max_tensors; i++) {
        if (m->inputs[i].buffer) api.destroy_buffer(m->inputs[i].buffer);
        if (m->outputs[i].buffer) api.destroy_buffer(m->outputs[i].buffer);
    }
    // The compiled model reads the model's bytes: it goes first, the environment last.
    if (m->compiled) api.destroy_compiled_model(m->compiled);
    if (m->model) api.destroy_model(m->model);
    if (m->environment) api.destroy_environment(m->environment);
    free(m);
}

// A float32 host buffer for one tensor of the signature, sized from its ranked type.
static int make_tensor(vl_litert_model *m, handle signature_tensor, struct tensor *t, char *error, size_t size) {
    int status = api.ranked_tensor_type(signature_tensor, &t->type);
    if (status != 0) { fail(error, size, "tensor type: %s", status_name(status)); return 0; }
    if (t->type.element_type != float32_type) { fail(error, size, "a tensor is not float32"); return 0; }
    size_t count = 1;
    // A batch left open (-1) is a batch of one, as the model was converted for.
    if (t->type.rank > 0 && t->type.dimensions[0] == -1) t->type.dimensions[0] = 1;
    for (unsigned d = 0; d < t->type.rank; d++) {
        if (t->type.dimensions[d] <= 0) { fail(error, size, "a tensor has a dynamic dimension"); return 0; }
        count *= (size_t)t->type.dimensions[d];
    }
    t->floats = count;
    status = api.create_managed_buffer(m->environment, host_memory_buffer, &t->type, count * sizeof(float), &t->buffer);
    if (status != 0) { fail(error, size, "tensor buffer: %s", status_name(status)); return 0; }
    size_t packed = 0;
    if (api.buffer_packed_size(t->buffer, &packed) != 0 || packed < count * sizeof(float)) {
        fail(error, size, "a tensor's buffer is smaller than its shape");
        return 0;
    }
    return 1;
}

static void free_text(void *text) { free(text); }

static vl_litert_model *open_model(const char *library_path, const char *model_path, int threads,
                                   char *error, size_t size) {
    if (!load(library_path, error, size)) return NULL;
    vl_litert_model *m = calloc(1, sizeof *m);
    if (!m) { fail(error, size, "out of memory"); return NULL; }
    int status;
    handle options = NULL, signature = NULL;
    if ((status = api.create_environment(0, NULL, &m->environment)) != 0) {
        fail(error, size, "environment: %s", status_name(status)); goto failed;
    }
    if ((status = api.create_model_from_file(m->environment, model_path, &m->model)) != 0) {
        fail(error, size, "%s: %s", model_path, status_name(status)); goto failed;
    }
    // The runtime takes its CPU thread count only as an "xnnpack" option whose payload is
    // `num_threads = N` in TOML; without it XNNPACK runs on one thread.
    if ((status = api.create_options(&options)) != 0
        || (status = api.set_hardware_accelerators(options, cpu_accelerator)) != 0) {
        fail(error, size, "options: %s", status_name(status)); goto failed;
    }
    char *payload = malloc(32);
    if (!payload) { fail(error, size, "out of memory"); goto failed; }
    snprintf(payload, 32, "num_threads = %d\n", threads > 0 ? threads : 1);
    handle cpu = NULL;
    if ((status = api.create_opaque_options("xnnpack", payload, free_text, &cpu)) != 0) {
        free(payload);
        fail(error, size, "CPU options: %s", status_name(status)); goto failed;
    }
    if ((status = api.add_opaque_options(options, cpu)) != 0) {
        api.destroy_opaque_options(cpu);
        fail(error, size, "CPU options: %s", status_name(status)); goto failed;
    }
    status = api.create_compiled_model(m->environment, m->model, options, &m->compiled);
    api.destroy_options(options);
    options = NULL;
    if (status != 0) { fail(error, size, "%s: compiling: %s", model_path, status_name(status)); goto failed; }

    size_t signatures = 0;
    if ((status = api.num_model_signatures(m->model, &signatures)) != 0 || signatures < 1
        || (status = api.model_signature(m->model, 0, &signature)) != 0) {
        fail(error, size, "%s: no signature", model_path); goto failed;
    }
    if (api.num_signature_inputs(signature, &m->input_count) != 0 || api.num_signature_outputs(signature, &m->output_count) != 0
        || m->input_count > max_tensors || m->output_count > max_tensors) {
        fail(error, size, "%s: unexpected inputs or outputs", model_path); goto failed;
    }
    for (size_t i = 0; i < m->input_count; i++) {
        handle tensor = NULL;
        if (api.signature_input_tensor(signature, i, &tensor) != 0 || !make_tensor(m, tensor, &m->inputs[i], error, size)) goto failed;
    }
    for (size_t i = 0; i < m->output_count; i++) {
        handle tensor = NULL;
        if (api.signature_output_tensor(signature, i, &tensor) != 0 || !make_tensor(m, tensor, &m->outputs[i], error, size)) goto failed;
    }
    return m;
failed:
    if (options) api.destroy_options(options);
    close_model(m);
    return NULL;
}

// The runtime writes INFO and WARNING lines to stderr as it loads, compiles and destroys a model
// (it looks for GPU and NPU libraries a server does not have) and exports no way to quiet them,
// which would break the CLI's one-line error reports and the server's JSON log. Those calls run
// with stderr sent to a temporary file; its other lines (an ERROR, or what another thread wrote
// meanwhile) are written back afterwards.
static pthread_mutex_t quiet_lock = PTHREAD_MUTEX_INITIALIZER;
struct quiet { int saved; FILE *capture; };

static struct quiet quiet_begin(void) {
    pthread_mutex_lock(&quiet_lock);
    struct quiet q = { -1, NULL };
    fflush(stderr);
    if (!(q.capture = tmpfile())) return q;
    q.saved = dup(STDERR_FILENO);
    if (q.saved < 0 || dup2(fileno(q.capture), STDERR_FILENO) < 0) {
        if (q.saved >= 0) close(q.saved);
        fclose(q.capture);
        q.capture = NULL;
    }
    return q;
}

static void quiet_end(struct quiet q) {
    if (q.capture) {
        fflush(stderr);
        dup2(q.saved, STDERR_FILENO);
        close(q.saved);
        rewind(q.capture);
        char line[4096];
        while (fgets(line, sizeof line, q.capture)) {
            if (strncmp(line, "INFO: ", 6) != 0 && strncmp(line, "WARNING: ", 9) != 0) fputs(line, stderr);
        }
        fflush(stderr);
        fclose(q.capture);
    }
    pthread_mutex_unlock(&quiet_lock);
}

vl_litert_model *vl_litert_model_open(const char *library_path, const char *model_path, int threads,
                                      char *error, size_t size) {
    struct quiet q = quiet_begin();
    vl_litert_model *m = open_model(library_path, model_path, threads, error, size);
    quiet_end(q);
    return m;
}

void vl_litert_model_close(vl_litert_model *m) {
    struct quiet q = quiet_begin();
    close_model(m);
    quiet_end(q);
}

size_t vl_litert_model_input_count(const vl_litert_model *m) { return m->input_count; }
size_t vl_litert_model_output_count(const vl_litert_model *m) { return m->output_count; }
size_t vl_litert_model_input_size(const vl_litert_model *m, size_t i) { return i < m->input_count ? m->inputs[i].floats : 0; }
size_t vl_litert_model_output_size(const vl_litert_model *m, size_t i) { return i < m->output_count ? m->outputs[i].floats : 0; }

static int shape(const struct tensor *t, int *dimensions) {
    int rank = (int)t->type.rank;
    for (int d = 0; d < rank && d < 8; d++) dimensions[d] = t->type.dimensions[d];
    return rank;
}

int vl_litert_model_input_shape(const vl_litert_model *m, size_t i, int *dimensions) {
    return i < m->input_count ? shape(&m->inputs[i], dimensions) : 0;
}

int vl_litert_model_output_shape(const vl_litert_model *m, size_t i, int *dimensions) {
    return i < m->output_count ? shape(&m->outputs[i], dimensions) : 0;
}

// Copies between a caller's floats and a tensor's buffer (sized at open), locked for the copy only.
static int copy(struct tensor *t, float *to, const float *from, char *error, size_t size) {
    void *memory = NULL;
    int status = api.lock_buffer(t->buffer, &memory, from ? lock_write : lock_read);
    if (status != 0) { fail(error, size, "locking a tensor: %s", status_name(status)); return 0; }
    if (from) memcpy(memory, from, t->floats * sizeof(float));
    else memcpy(to, memory, t->floats * sizeof(float));
    api.unlock_buffer(t->buffer);
    return 1;
}

int vl_litert_model_run(vl_litert_model *m, const float *const *inputs, float *const *outputs, char *error, size_t size) {
    handle in[max_tensors], out[max_tensors];
    for (size_t i = 0; i < m->input_count; i++) {
        if (!copy(&m->inputs[i], NULL, inputs[i], error, size)) return -1;
        in[i] = m->inputs[i].buffer;
    }
    for (size_t i = 0; i < m->output_count; i++) out[i] = m->outputs[i].buffer;
    int status = api.run_compiled_model(m->compiled, 0, m->input_count, in, m->output_count, out);
    if (status != 0) { fail(error, size, "running: %s", status_name(status)); return -1; }
    for (size_t i = 0; i < m->output_count; i++) {
        if (!copy(&m->outputs[i], outputs[i], NULL, error, size)) return -1;
    }
    return 0;
}
