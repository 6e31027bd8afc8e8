#include "CDlibFace.h"
#include "ImageView.hpp"
#include <dlib/image_io.h>
#include <cstring>

extern "C" int vf_decode(const uint8_t *bytes, size_t length, int format, uint8_t *rgb_out,
                         long width, long height, char *message, size_t message_length) {
    if (!bytes || !rgb_out || width <= 0 || height <= 0) return VF_ERROR_ARGUMENT;
    try {
        dlib::array2d<dlib::rgb_pixel> image;
        if (format == VF_FORMAT_JPEG) dlib::load_jpeg(image, bytes, length);
        else if (format == VF_FORMAT_PNG) dlib::load_png(image, bytes, length);
        else return VF_ERROR_ARGUMENT;
        if (image.nc() != width || image.nr() != height) return VF_ERROR_SIZE;
        std::memcpy(rgb_out, dlib::image_data(image), size_t(width) * size_t(height) * 3);
        return VF_OK;
    } catch (const std::exception &e) {
        vigil::copyMessage(e.what(), message, message_length);
        return VF_ERROR_DECODE;
    } catch (...) {
        vigil::copyMessage("unknown decoder failure", message, message_length);
        return VF_ERROR_INTERNAL;
    }
}
