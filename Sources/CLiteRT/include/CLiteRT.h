// A TensorFlow Lite model run on the CPU by LiteRT's C runtime (`libLiteRt.so` of the PyPI wheel
// `ai-edge-litert` 2.3.0, Apache-2.0), loaded with dlopen at run time.
//
// The wheel ships no header. LiteRtRuntime.c declares the few runtime functions it calls itself,
// from LiteRT's public C API as of 2.3.0, and `scripts/setup` pins the library by SHA-256, so
// those declarations and the library cannot drift apart.
//
// Ownership: `vl_litert_model_open` returns a model the caller owns and frees with
// `vl_litert_model_close`. A model runs on one thread at a time. The library handle is kept for
// the life of the process (models of any thread share it).
#ifndef CLITERT_H
#define CLITERT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One loaded model with its compiled form and its tensors, float32 in and out.
typedef struct vl_litert_model vl_litert_model;

/// Loads `library_path` (once per process) and compiles the .tflite at `model_path` for the CPU
/// with `threads` threads. NULL on failure, with a message in `error`.
vl_litert_model *vl_litert_model_open(const char *library_path, const char *model_path, int threads,
                                      char *error, size_t error_size);
void vl_litert_model_close(vl_litert_model *model);

size_t vl_litert_model_input_count(const vl_litert_model *model);
size_t vl_litert_model_output_count(const vl_litert_model *model);
/// Number of float32 values of input or output `index`; 0 when out of range.
size_t vl_litert_model_input_size(const vl_litert_model *model, size_t index);
size_t vl_litert_model_output_size(const vl_litert_model *model, size_t index);
/// The dimensions of input or output `index` (at most 8) into `dimensions`; returns the rank.
int vl_litert_model_input_shape(const vl_litert_model *model, size_t index, int *dimensions);
int vl_litert_model_output_shape(const vl_litert_model *model, size_t index, int *dimensions);

/// Copies `inputs[i]` (each `vl_litert_model_input_size(i)` floats) in, runs the model and copies
/// each output to `outputs[i]`. 0 on success; -1 with a message in `error`.
int vl_litert_model_run(vl_litert_model *model, const float *const *inputs, float *const *outputs,
                        char *error, size_t error_size);

#ifdef __cplusplus
}
#endif

#endif
