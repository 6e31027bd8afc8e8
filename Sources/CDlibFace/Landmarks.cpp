#include "CDlibFace.h"
#include "ImageView.hpp"
#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_processing/shape_predictor.h>
#include <dlib/serialize.h>

struct vf_detector { dlib::frontal_face_detector detector = dlib::get_frontal_face_detector(); };
struct vf_shape_model { dlib::shape_predictor predictor; };

extern "C" vf_detector *vf_detector_create(void) {
    try { return new vf_detector(); } catch (...) { return nullptr; }
}
extern "C" vf_detector *vf_detector_clone(const vf_detector *detector) {
    try { return detector ? new vf_detector(*detector) : nullptr; } catch (...) { return nullptr; }
}
extern "C" void vf_detector_destroy(vf_detector *detector) { delete detector; }

extern "C" int vf_detector_run(vf_detector *detector, const uint8_t *gray, long width, long height,
                               double threshold, vf_rect *boxes, double *scores, int capacity) {
    if (!detector || !gray || width <= 0 || height <= 0) return -1;
    try {
        std::vector<dlib::rect_detection> found;
        detector->detector(vigil::GrayView{gray, height, width}, found, threshold);
        int n = int(found.size());
        for (int i = 0; i < n && i < capacity; ++i) {
            const auto &r = found[i].rect;
            boxes[i] = vf_rect{r.left(), r.top(), r.right(), r.bottom()};
            scores[i] = found[i].detection_confidence;
        }
        return n;
    } catch (...) {
        return -1;
    }
}

extern "C" vf_shape_model *vf_shape_model_load(const char *path, char *message, size_t message_length) {
    try {
        auto *model = new vf_shape_model();
        try {
            dlib::deserialize(path) >> model->predictor;
        } catch (...) {
            delete model;
            throw;
        }
        return model;
    } catch (const std::exception &e) {
        vigil::copyMessage(e.what(), message, message_length);
        return nullptr;
    }
}
extern "C" void vf_shape_model_destroy(vf_shape_model *model) { delete model; }
extern "C" int vf_shape_model_parts(const vf_shape_model *model) {
    return model ? int(model->predictor.num_parts()) : 0;
}

extern "C" int vf_shape_predict(const vf_shape_model *model, const uint8_t *rgb, long width, long height,
                                vf_rect box, float *points_xy) {
    if (!model || !rgb || !points_xy || width <= 0 || height <= 0) return VF_ERROR_ARGUMENT;
    try {
        auto shape = model->predictor(vigil::rgbView(rgb, width, height),
                                      dlib::rectangle(box.left, box.top, box.right, box.bottom));
        for (unsigned long i = 0; i < shape.num_parts(); ++i) {
            points_xy[2 * i] = float(shape.part(i).x());
            points_xy[2 * i + 1] = float(shape.part(i).y());
        }
        return VF_OK;
    } catch (...) {
        return VF_ERROR_INTERNAL;
    }
}
