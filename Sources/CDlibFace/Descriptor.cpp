// The ResNet definition lives alone in this file: it takes most of the shim's compile time.
#include "CDlibFace.h"
#include "ImageView.hpp"
#include <dlib/dnn.h>
#include <dlib/image_transforms.h>
#include <climits>
#include <cmath>

namespace {
using namespace dlib;
// Layer layout of dlib_face_recognition_resnet_model_v1.dat; must match the serialised model.
template <template <int, template <typename> class, int, typename> class B, int N,
          template <typename> class BN, typename S>
using residual = add_prev1<B<N, BN, 1, tag1<S>>>;
template <template <int, template <typename> class, int, typename> class B, int N,
          template <typename> class BN, typename S>
using residual_down = add_prev2<avg_pool<2, 2, 2, 2, skip1<tag2<B<N, BN, 2, tag1<S>>>>>>;
template <int N, template <typename> class BN, int stride, typename S>
using block = BN<con<N, 3, 3, 1, 1, relu<BN<con<N, 3, 3, stride, stride, S>>>>>;
template <int N, typename S> using ares = relu<residual<block, N, affine, S>>;
template <int N, typename S> using ares_down = relu<residual_down<block, N, affine, S>>;
template <typename S> using level0 = ares_down<256, S>;
template <typename S> using level1 = ares<256, ares<256, ares_down<256, S>>>;
template <typename S> using level2 = ares<128, ares<128, ares_down<128, S>>>;
template <typename S> using level3 = ares<64, ares<64, ares<64, ares_down<64, S>>>>;
template <typename S> using level4 = ares<32, ares<32, ares<32, S>>>;
using FaceNet = loss_metric<fc_no_bias<128, avg_pool_everything<level0<level1<level2<level3<level4<
    max_pool<3, 3, 2, 2, relu<affine<con<32, 7, 7, 2, 2, input_rgb_image_sized<150>>>>>>>>>>>>>;
} // namespace

struct vf_encoder { FaceNet net; };

extern "C" vf_encoder *vf_encoder_load(const char *path, char *message, size_t message_length) {
    try {
        auto *encoder = new vf_encoder();
        try {
            dlib::deserialize(path) >> encoder->net;
        } catch (...) {
            delete encoder;
            throw;
        }
        return encoder;
    } catch (const std::exception &e) {
        vigil::copyMessage(e.what(), message, message_length);
        return nullptr;
    }
}
extern "C" vf_encoder *vf_encoder_clone(const vf_encoder *encoder) {
    try { return encoder ? new vf_encoder(*encoder) : nullptr; } catch (...) { return nullptr; }
}
extern "C" void vf_encoder_destroy(vf_encoder *encoder) { delete encoder; }

extern "C" int vf_encoder_compute(vf_encoder *encoder, const uint8_t *rgb, long width, long height,
                                  const float *points_xy, int parts, float *descriptor) {
    if (!encoder || !rgb || !points_xy || !descriptor || (parts != 68 && parts != 5)) return VF_ERROR_ARGUMENT;
    try {
        std::vector<dlib::point> points;
        long minX = LONG_MAX, minY = LONG_MAX, maxX = LONG_MIN, maxY = LONG_MIN;
        for (int i = 0; i < parts; ++i) {
            dlib::point p{std::lround(points_xy[2 * i]), std::lround(points_xy[2 * i + 1])};
            points.push_back(p);
            minX = std::min(minX, p.x()); maxX = std::max(maxX, p.x());
            minY = std::min(minY, p.y()); maxY = std::max(maxY, p.y());
        }
        dlib::full_object_detection shape(dlib::rectangle(minX, minY, maxX, maxY), points);
        dlib::matrix<dlib::rgb_pixel> chip;
        dlib::extract_image_chip(vigil::rgbView(rgb, width, height),
                                 dlib::get_face_chip_details(shape, 150, 0.25), chip);
        dlib::matrix<float, 0, 1> out = encoder->net(chip);
        for (int i = 0; i < 128; ++i) descriptor[i] = out(i);
        return VF_OK;
    } catch (...) {
        return VF_ERROR_INTERNAL;
    }
}
