#include "CCurl.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static void global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

/// The answer's body is not read: only its status counts.
static size_t discard(char *data, size_t size, size_t count, void *context) {
    (void)data; (void)context;
    return size * count;
}

int vigil_curl_post(const char *url, const char *host, int port, const char *address,
                    const char *const *headers, size_t header_count,
                    const uint8_t *body, size_t body_len, long timeout_ms,
                    long *status, char *error, size_t error_len) {
    pthread_once(&global_once, global_init);
    char message[CURL_ERROR_SIZE] = "";
    *status = 0;
    CURL *curl = curl_easy_init();
    if (!curl) {
        snprintf(error, error_len, "libcurl could not start a transfer");
        return -1;
    }
    // "host:port:address", IPv6 addresses in brackets: the connection goes where the check looked.
    char pin[1200];
    const int ipv6 = strchr(address, ':') != NULL;
    snprintf(pin, sizeof pin, ipv6 ? "%s:%d:[%s]" : "%s:%d:%s", host, port, address);
    struct curl_slist *resolve = curl_slist_append(NULL, pin);
    struct curl_slist *lines = NULL;
    for (size_t i = 0; i < header_count; i++) lines = curl_slist_append(lines, headers[i]);
    lines = curl_slist_append(lines, "Expect:");   // no 100-continue round trip

    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_RESOLVE, resolve);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_PROXY, "");   // no proxy from the environment: it would resolve the host itself
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, (const char *)body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, lines);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, message);

    const CURLcode code = curl_easy_perform(curl);
    if (code == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
    else snprintf(error, error_len, "%s", message[0] ? message : curl_easy_strerror(code));
    curl_easy_cleanup(curl);
    curl_slist_free_all(lines);
    curl_slist_free_all(resolve);
    return code == CURLE_OK ? 0 : (int)code;
}
