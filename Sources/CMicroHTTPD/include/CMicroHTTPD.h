#ifndef VIGIL_CMICROHTTPD_H
#define VIGIL_CMICROHTTPD_H

#include <stddef.h>
#include <stdint.h>

/* A thin layer over libmicrohttpd: it reads each request whole (up to a per-request body limit
   asked of the embedder before any body byte is buffered), hands it to one callback, and sends
   what the callback answered. Everything the callback receives is valid only during the call. */

typedef struct vh_pair {
    const char *name;
    const char *value;
} vh_pair;

typedef struct vh_request {
    const char *method;
    const char *path;
    const vh_pair *headers;
    size_t header_count;
    const vh_pair *query;
    size_t query_count;
    const uint8_t *body;
    size_t body_length;
    const char *remote_address;
    /* 0, or 413 when the body was refused for its size (body is then empty). */
    int refused_status;
} vh_request;

typedef struct vh_reply vh_reply;

/* Decides on a request's headers, before any body byte is read (its body is empty here):
   returns the most body bytes accepted, or refuses the request by answering it through
   vh_reply_* (a refusal sets a status). */
typedef size_t (*vh_admit_fn)(void *context, const vh_request *head, vh_reply *reply);
/* Answers a request through vh_reply_*, now or, after vh_reply_defer, later from any thread. */
typedef void (*vh_handler_fn)(void *context, const vh_request *request, vh_reply *reply);

typedef struct vh_server vh_server;

/* Starts listening on host:port (port 0 picks one) with `threads` worker threads (poll). A
   client address holding `connections_per_address` connections (0: no limit) has further ones
   closed as they are accepted. An announced body refused for its size (up to 64 MiB past the
   limit) or by the admission (up to 1 MiB) is read and dropped for at most `linger_seconds`
   before the refusal (a lingering close). `context` is passed to both callbacks and must outlive
   the server. NULL on failure, with a message in `error` (at least 256 bytes). */
vh_server *vh_start(const char *host, uint16_t port, unsigned threads, unsigned idle_timeout_seconds,
                    unsigned connections_per_address, unsigned linger_seconds, vh_admit_fn admit, vh_handler_fn handler,
                    void *context, char *error);
/* The port listened on. */
uint16_t vh_port(const vh_server *server);
/* From now on each new connection is closed as it is accepted; requests in progress continue. */
void vh_quiesce(vh_server *server);
/* Requests being read or answered now. */
long vh_in_flight(const vh_server *server);
/* Stops the server and frees it (after vh_quiesce and a drain, no request is cut). */
void vh_stop(vh_server *server);

void vh_reply_status(vh_reply *reply, int status);
void vh_reply_header(vh_reply *reply, const char *name, const char *value);
void vh_reply_body(vh_reply *reply, const uint8_t *bytes, size_t length);
/* Called by a handler before it returns: the request is answered later, from another thread,
   while the connection waits suspended and the worker thread serves other connections. The
   request passed to the handler is not valid after it returns; the reply is, until
   vh_reply_finish, which sends it (after vh_reply_status/header/body) and frees it. */
void vh_reply_defer(vh_reply *reply);
void vh_reply_finish(vh_reply *reply);
/* Lowers the calling thread's scheduling priority by `steps` nice steps (Linux; a no-op where
   it is not allowed). */
void vh_lower_thread_priority(int steps);

#endif
