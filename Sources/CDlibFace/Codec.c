// JPEG and PNG coding straight over libjpeg and libpng: dlib's savers only write files, and its
// loaders let libjpeg print every corrupt-data warning to stderr, which hostile input could flood.
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
    char message[JMSG_LENGTH_MAX];
};

static void jpeg_fail(j_common_ptr info) {
    struct jpeg_failure *failure = (struct jpeg_failure *)info->err;
    (*info->err->format_message)(info, failure->message);
    longjmp(failure->jump, 1);
}

// Warnings (recoverable corrupt data) are not printed; the decoder carries on as libjpeg does.
static void jpeg_quiet(j_common_ptr info, int level) { (void)info; (void)level; }

static void copy_message(const char *text, char *message, size_t length) {
    if (!message || length == 0) return;
    strncpy(message, text, length - 1);
    message[length - 1] = 0;
}

static int decode_jpeg(const uint8_t *bytes, size_t length, uint8_t *rgb_out, long width, long height,
                       char *message, size_t message_length) {
    struct jpeg_decompress_struct info;
    struct jpeg_failure failure;
    info.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpeg_fail;
    failure.manager.emit_message = jpeg_quiet;
    if (setjmp(failure.jump)) {
        copy_message(failure.message, message, message_length);
        jpeg_destroy_decompress(&info);
        return VF_ERROR_DECODE;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, bytes, (unsigned long)length);
    jpeg_read_header(&info, TRUE);
    if ((long)info.image_width != width || (long)info.image_height != height) {
        jpeg_destroy_decompress(&info);
        return VF_ERROR_SIZE;
    }
    info.out_color_space = JCS_RGB;
    jpeg_start_decompress(&info);
    if (info.output_components != 3 || (long)info.output_width != width || (long)info.output_height != height) {
        jpeg_destroy_decompress(&info);
        return VF_ERROR_SIZE;
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = rgb_out + (size_t)info.output_scanline * (size_t)width * 3;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    return VF_OK;
}

static int decode_png(const uint8_t *bytes, size_t length, uint8_t *rgb_out, long width, long height,
                      char *message, size_t message_length) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, bytes, length)) {
        copy_message(image.message, message, message_length);
        return VF_ERROR_DECODE;
    }
    if ((long)image.width != width || (long)image.height != height) {
        png_image_free(&image);
        return VF_ERROR_SIZE;
    }
    image.format = PNG_FORMAT_RGB;   // alpha is composited onto black
    if (!png_image_finish_read(&image, NULL, rgb_out, 0, NULL)) {
        copy_message(image.message, message, message_length);
        png_image_free(&image);
        return VF_ERROR_DECODE;
    }
    return VF_OK;
}

int vf_decode(const uint8_t *bytes, size_t length, int format, uint8_t *rgb_out, long width, long height,
              char *message, size_t message_length) {
    if (!bytes || !rgb_out || width <= 0 || height <= 0) return VF_ERROR_ARGUMENT;
    if (format == VF_FORMAT_JPEG) return decode_jpeg(bytes, length, rgb_out, width, height, message, message_length);
    if (format == VF_FORMAT_PNG) return decode_png(bytes, length, rgb_out, width, height, message, message_length);
    return VF_ERROR_ARGUMENT;
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
