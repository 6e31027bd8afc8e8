// Zero-copy dlib image views over caller-owned buffers (read-only).
#pragma once
#include <dlib/image_processing/generic_image.h>
#include <dlib/pixel.h>
#include <cstdint>

namespace vigil {
template <typename Pixel> struct ConstView {
    const Pixel *data;
    long rows;
    long cols;
};
using RGBView = ConstView<dlib::rgb_pixel>;
using GrayView = ConstView<unsigned char>;

inline RGBView rgbView(const uint8_t *rgb, long width, long height) {
    return RGBView{reinterpret_cast<const dlib::rgb_pixel *>(rgb), height, width};
}
inline void copyMessage(const char *text, char *message, size_t length) {
    if (!message || length == 0) return;
    size_t i = 0;
    for (; text[i] && i + 1 < length; ++i) message[i] = text[i];
    message[i] = 0;
}
} // namespace vigil

namespace dlib {
template <typename Pixel> struct image_traits<vigil::ConstView<Pixel>> { typedef Pixel pixel_type; };
} // namespace dlib

// dlib's generic image interface, found by argument-dependent lookup.
namespace vigil {
template <typename Pixel> inline long num_rows(const ConstView<Pixel> &v) { return v.rows; }
template <typename Pixel> inline long num_columns(const ConstView<Pixel> &v) { return v.cols; }
template <typename Pixel> inline const void *image_data(const ConstView<Pixel> &v) { return v.data; }
template <typename Pixel> inline long width_step(const ConstView<Pixel> &v) { return v.cols * sizeof(Pixel); }
} // namespace vigil
