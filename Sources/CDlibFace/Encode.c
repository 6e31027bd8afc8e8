// JPEG and PNG encoding straight over libjpeg and libpng (dlib's savers only write files).
#include "CDlibFace.h"
#include <stdio.h>
#include <jpeglib.h>
#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

struct jpeg_failure {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
};

static void jpeg_fail(j_common_ptr info) {
    struct jpeg_failure *failure = (struct jpeg_failure *)info->err;
    longjmp(failure->jump, 1);
}

int vf_encode_jpeg(const uint8_t *rgb, long width, long height, int quality, uint8_t **out, size_t *out_length) {
    if (!rgb || !out || !out_length || width <= 0 || height <= 0 || quality < 1 || quality > 100) return VF_ERROR_ARGUMENT;
    struct jpeg_compress_struct info;
    struct jpeg_failure failure;
    unsigned char *buffer = NULL;
    unsigned long length = 0;
    info.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpeg_fail;
    if (setjmp(failure.jump)) {
        jpeg_destroy_compress(&info);
        free(buffer);
        return VF_ERROR_INTERNAL;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, &buffer, &length);
    info.image_width = (JDIMENSION)width;
    info.image_height = (JDIMENSION)height;
    info.input_components = 3;
    info.in_color_space = JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row = (JSAMPROW)(rgb + (size_t)info.next_scanline * (size_t)width * 3);
        jpeg_write_scanlines(&info, &row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    *out = buffer;
    *out_length = length;
    return VF_OK;
}

int vf_encode_png(const uint8_t *rgb, long width, long height, uint8_t **out, size_t *out_length) {
    if (!rgb || !out || !out_length || width <= 0 || height <= 0) return VF_ERROR_ARGUMENT;
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = (png_uint_32)width;
    image.height = (png_uint_32)height;
    image.format = PNG_FORMAT_RGB;
    png_alloc_size_t length = 0;
    if (!png_image_write_to_memory(&image, NULL, &length, 0, rgb, 0, NULL)) return VF_ERROR_INTERNAL;
    uint8_t *buffer = malloc(length);
    if (!buffer) return VF_ERROR_INTERNAL;
    if (!png_image_write_to_memory(&image, buffer, &length, 0, rgb, 0, NULL)) {
        free(buffer);
        return VF_ERROR_INTERNAL;
    }
    *out = buffer;
    *out_length = length;
    return VF_OK;
}

void vf_free(void *pointer) { free(pointer); }
