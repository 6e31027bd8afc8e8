#ifndef VIGIL_CCURL_H
#define VIGIL_CCURL_H

#include <stddef.h>
#include <stdint.h>

/// POSTs `body` to `url` with libcurl, connecting only to `address` for the URL's host and port
/// (no DNS lookup of its own, no redirects, no proxy, http and https only). `headers` are
/// "Name: value" lines. Returns 0 with the HTTP status in `status`, or non-zero with libcurl's
/// message in `error` (NUL-terminated, at most `error_len` bytes). Safe to call from any thread;
/// every handle it makes is freed before it returns.
int vigil_curl_post(const char *url, const char *host, int port, const char *address,
                    const char *const *headers, size_t header_count,
                    const uint8_t *body, size_t body_len, long timeout_ms,
                    long *status, char *error, size_t error_len);

#endif
