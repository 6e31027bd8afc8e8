// Thin C interface over dlib, libjpeg and libpng for VigilFace. No logic beyond marshalling: every function either
// fills caller-owned buffers or creates/destroys an opaque object. No exception crosses it.
#ifndef CDLIBFACE_H
#define CDLIBFACE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes returned by every fallible call.
enum {
    VF_OK = 0,
    VF_ERROR_DECODE = 1,     // the bytes are not a decodable image
    VF_ERROR_SIZE = 2,       // the decoded size differs from the size the caller expected
    VF_ERROR_LOAD = 3,       // a model file could not be read or deserialised
    VF_ERROR_ARGUMENT = 4,   // an argument is out of range
    VF_ERROR_INTERNAL = 5    // dlib threw something unexpected
};

/// Image container formats accepted by vf_decode.
enum { VF_FORMAT_JPEG = 1, VF_FORMAT_PNG = 2 };

/// A rectangle in pixel coordinates, inclusive corners as dlib uses them.
typedef struct { long left, top, right, bottom; } vf_rect;

/// Decodes JPEG or PNG bytes into caller-owned interleaved RGB (width*height*3 bytes).
/// The caller reads width and height from the header first and allocates `rgb_out`.
int vf_decode(const uint8_t *bytes, size_t length, int format,
              uint8_t *rgb_out, long width, long height, char *message, size_t message_length);

/// Encodes interleaved RGB as JPEG (quality 1-100) or PNG into a buffer the caller frees with vf_free.
int vf_encode_jpeg(const uint8_t *rgb, long width, long height, int quality, uint8_t **out, size_t *out_length);
int vf_encode_png(const uint8_t *rgb, long width, long height, uint8_t **out, size_t *out_length);
void vf_free(void *pointer);

/// HOG frontal face detector. Not thread-safe: one per worker. Owned by the caller.
typedef struct vf_detector vf_detector;
vf_detector *vf_detector_create(void);
/// A copy of a detector (much cheaper than creating one, which decodes the embedded model).
vf_detector *vf_detector_clone(const vf_detector *detector);
void vf_detector_destroy(vf_detector *detector);
/// Runs the detector on an 8-bit grayscale image; writes up to `capacity` boxes and scores.
/// Returns the number of detections (possibly more than written) or -1 on error.
int vf_detector_run(vf_detector *detector, const uint8_t *gray, long width, long height,
                    double threshold, vf_rect *boxes, double *scores, int capacity);

/// Shape predictor (68 or 5 landmarks). Read-only after loading: safe to share between threads.
typedef struct vf_shape_model vf_shape_model;
vf_shape_model *vf_shape_model_load(const char *path, char *message, size_t message_length);
void vf_shape_model_destroy(vf_shape_model *model);
int vf_shape_model_parts(const vf_shape_model *model);
/// Predicts landmarks inside `box` on an RGB image; writes 2*parts floats (x, y).
int vf_shape_predict(const vf_shape_model *model, const uint8_t *rgb, long width, long height,
                     vf_rect box, float *points_xy);

/// ResNet face encoder (128-d). Not thread-safe: clone one per worker.
typedef struct vf_encoder vf_encoder;
vf_encoder *vf_encoder_load(const char *path, char *message, size_t message_length);
vf_encoder *vf_encoder_clone(const vf_encoder *encoder);
void vf_encoder_destroy(vf_encoder *encoder);
/// Aligns a 150x150 chip from 68 or 5 landmarks (padding 0.25) and writes 128 floats.
int vf_encoder_compute(vf_encoder *encoder, const uint8_t *rgb, long width, long height,
                       const float *points_xy, int parts, float *descriptor);

/// Prepares the BLAS that dlib calls for use from several threads and says whether that is safe.
/// With OpenBLAS it pins each call to one thread (Vigil runs analyzers in parallel itself).
/// Returns 1 when concurrent calls are safe: a reference BLAS, or an OpenBLAS built for threads;
/// 0 for an OpenBLAS built single-threaded, whose shared buffers concurrent calls corrupt.
int vf_blas_prepare(void);

#ifdef __cplusplus
}
#endif
#endif
