#define _GNU_SOURCE /* strcasestr */
#include "CMicroHTTPD.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* Bytes of an oversized chunked body read and dropped before the connection is cut. */
#define VH_DISCARD_LIMIT (1024 * 1024)
/* An announced oversized body is read and dropped (a lingering close, as nginx does) when it is
   at most this far past the limit, for at most the server's `linger_seconds`; then the refusal
   is answered. Past either bound the connection is cut. */
#define VH_LINGER_BYTES (64ULL * 1024 * 1024)

struct vh_server {
    struct MHD_Daemon *daemon;
    vh_admit_fn admit;
    vh_handler_fn handler;
    void *context;
    atomic_long in_flight;
    atomic_int quiesced; /* set by vh_quiesce: new connections are closed as they arrive */
    unsigned linger_seconds;
};

/* Per request, from the first access-handler call to the completion callback. */
typedef struct vh_state {
    uint8_t *body;
    size_t length, capacity, limit;
    int refused;     /* the refusal was queued */
    struct vh_reply *deferred; /* the reply an embedder's worker fills while the connection is suspended */
    int discarding;  /* the body is read and dropped, then the refusal answered */
    struct MHD_Response *refusal; /* the admission's answer, or NULL for a 413 */
    unsigned refusal_status;
    size_t overflow; /* bytes discarded */
    size_t discard_limit; /* past this many, the connection is cut */
    struct timespec discard_deadline; /* past this (monotonic), too */
} vh_state;

/* Starts dropping the body: at most `limit` bytes, for at most the server's `linger_seconds` in
   all, a client that sends nothing meanwhile included (the connection's idle timeout). */
static void start_discarding(const vh_server *server, vh_state *state, struct MHD_Connection *connection, size_t limit) {
    state->discarding = 1;
    state->discard_limit = limit;
    clock_gettime(CLOCK_MONOTONIC, &state->discard_deadline);
    state->discard_deadline.tv_sec += server->linger_seconds;
    MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, server->linger_seconds);
}

/* Whether the body being dropped ran past its bounds. */
static int discarded_too_much(const vh_state *state) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int late = now.tv_sec > state->discard_deadline.tv_sec
               || (now.tv_sec == state->discard_deadline.tv_sec && now.tv_nsec > state->discard_deadline.tv_nsec);
    return state->overflow > state->discard_limit || late;
}

struct vh_reply {
    struct MHD_Response *response;
    int status;
    vh_pair headers[32];
    char *header_storage[64];
    size_t header_count;
    struct MHD_Connection *connection; /* set for a handler's reply, which may be deferred */
    int deferred;                      /* the connection is suspended until vh_reply_finish */
    atomic_int finished;               /* vh_reply_finish was called: the reply is complete */
};

void vh_reply_status(vh_reply *reply, int status) { reply->status = status; }

void vh_reply_header(vh_reply *reply, const char *name, const char *value) {
    if (reply->header_count >= 32) return;
    char *n = strdup(name), *v = strdup(value);
    reply->header_storage[reply->header_count * 2] = n;
    reply->header_storage[reply->header_count * 2 + 1] = v;
    reply->headers[reply->header_count].name = n;
    reply->headers[reply->header_count].value = v;
    reply->header_count++;
}

void vh_reply_body(vh_reply *reply, const uint8_t *bytes, size_t length) {
    if (reply->response) MHD_destroy_response(reply->response);
    reply->response = MHD_create_response_from_buffer(length, (void *)bytes, MHD_RESPMEM_MUST_COPY);
}

typedef struct vh_pairs {
    vh_pair items[96];
    size_t count;
} vh_pairs;

static enum MHD_Result collect(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    vh_pairs *pairs = cls;
    if (pairs->count < 96 && key) {
        pairs->items[pairs->count].name = key;
        pairs->items[pairs->count].value = value ? value : "";
        pairs->count++;
    }
    return MHD_YES;
}

/* A request as the callbacks see it; its strings live in the connection and in `remote`. */
typedef struct vh_incoming {
    vh_pairs headers, query;
    char remote[INET6_ADDRSTRLEN];
    vh_request request;
} vh_incoming;

static void read_request(vh_incoming *in, struct MHD_Connection *connection, const char *url, const char *method,
                         const uint8_t *body, size_t length, int refused_status) {
    in->headers.count = 0;
    in->query.count = 0;
    in->remote[0] = 0;
    MHD_get_connection_values(connection, MHD_HEADER_KIND, collect, &in->headers);
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, collect, &in->query);
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info && info->client_addr) {
        const struct sockaddr *addr = info->client_addr;
        if (addr->sa_family == AF_INET) inet_ntop(AF_INET, &((const struct sockaddr_in *)addr)->sin_addr, in->remote, sizeof in->remote);
        else if (addr->sa_family == AF_INET6) inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)addr)->sin6_addr, in->remote, sizeof in->remote);
    }
    vh_request request = {
        .method = method, .path = url, .headers = in->headers.items, .header_count = in->headers.count,
        .query = in->query.items, .query_count = in->query.count, .body = body, .body_length = length,
        .remote_address = in->remote, .refused_status = refused_status,
    };
    in->request = request;
}

/* The MHD response of a filled reply (the caller destroys it). */
static struct MHD_Response *finish_reply(vh_reply *reply) {
    if (!reply->response) reply->response = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    for (size_t i = 0; i < reply->header_count; i++) MHD_add_response_header(reply->response, reply->headers[i].name, reply->headers[i].value);
    for (size_t i = 0; i < reply->header_count * 2; i++) free(reply->header_storage[i]);
    return reply->response;
}

static enum MHD_Result queue(struct MHD_Connection *connection, unsigned status, struct MHD_Response *response) {
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result;
}

static enum MHD_Result answer(vh_server *server, vh_state *state, struct MHD_Connection *connection, const char *url, const char *method,
                              const uint8_t *body, size_t length, int refused_status) {
    vh_incoming in;
    read_request(&in, connection, url, method, body, length, refused_status);
    vh_reply *reply = calloc(1, sizeof *reply);
    if (!reply) return MHD_NO;
    reply->status = 500;
    reply->connection = connection;
    server->handler(server->context, &in.request, reply);
    if (reply->deferred) {
        /* A worker answers later; the connection waits suspended, this thread serves others. */
        state->deferred = reply;
        return MHD_YES;
    }
    enum MHD_Result result = queue(connection, (unsigned)reply->status, finish_reply(reply));
    free(reply);
    return result;
}

void vh_reply_defer(vh_reply *reply) {
    reply->deferred = 1;
    MHD_suspend_connection(reply->connection);
}

void vh_lower_thread_priority(int steps) {
    /* Linux keeps a nice value per thread: PRIO_PROCESS with a thread id sets this thread's only. */
    (void)setpriority(PRIO_PROCESS, (id_t)gettid(), steps);
}

void vh_reply_finish(vh_reply *reply) {
    atomic_store(&reply->finished, 1);
    MHD_resume_connection(reply->connection);
}

/* The refusal decided on the headers: the admission's answer, or a 413. */
static enum MHD_Result refuse(vh_server *server, vh_state *state, struct MHD_Connection *connection, const char *url, const char *method) {
    state->refused = 1;
    if (state->refusal) {
        struct MHD_Response *response = state->refusal;
        state->refusal = NULL;
        return queue(connection, state->refusal_status, response);
    }
    return answer(server, state, connection, url, method, NULL, 0, 413);
}

static enum MHD_Result access_handler(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                                      const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls) {
    (void)version;
    vh_server *server = cls;
    vh_state *state = *con_cls;
    if (!state) {
        /* First call: headers only. Refuse an announced oversized body before reading any of it. */
        state = calloc(1, sizeof *state);
        if (!state) return MHD_NO;
        atomic_fetch_add(&server->in_flight, 1);
        *con_cls = state;
        /* The admission decides on the headers (authentication, the route's body limit) before
           any body byte is read or buffered. */
        vh_incoming in;
        read_request(&in, connection, url, method, NULL, 0, 0);
        vh_reply reply = {.response = NULL, .status = 0, .header_count = 0};
        state->limit = server->admit(server->context, &in.request, &reply);
        if (reply.status) {
            state->refusal = finish_reply(&reply);
            state->refusal_status = (unsigned)reply.status;
        }
        const char *declared = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (declared) {
            char *end = NULL;
            unsigned long long n = strtoull(declared, &end, 10);
            if (end == declared || *end != '\0') return refuse(server, state, connection, url, method);
            if (n > state->limit || state->refusal) {
                /* A client that sends its whole body before reading (no Expect: 100-continue)
                   would see the connection reset if the refusal came now and the unread body
                   after it (a 40 MB upload did): a body up to VH_LINGER_BYTES past the limit is
                   read and dropped first, within `linger_seconds`, so that a slow client holds
                   its connection no longer than that. A stranger's body (refused by the
                   admission) is read no further than VH_DISCARD_LIMIT. */
                const char *expect = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_EXPECT);
                unsigned long long bound = state->refusal ? VH_DISCARD_LIMIT : (unsigned long long)state->limit + VH_LINGER_BYTES;
                if (n == 0 || (expect && strcasestr(expect, "100-continue")) || n > bound) {
                    return refuse(server, state, connection, url, method);
                }
                start_discarding(server, state, connection, (size_t)n);
                return MHD_YES;
            }
            if (n > 0) {
                state->body = malloc((size_t)n);
                if (!state->body) return MHD_NO;
                state->capacity = (size_t)n;
            }
        } else if (state->refusal) {
            if (!MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
                return refuse(server, state, connection, url, method);
            }
            start_discarding(server, state, connection, VH_DISCARD_LIMIT);
        }
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t chunk = *upload_data_size;
        *upload_data_size = 0;
        if (!state->discarding && state->length + chunk > state->limit) {
            /* A chunked body that grew past the limit. MHD cannot answer in the middle of a body,
               so the rest is discarded up to a bound (then 413), and past it the connection is cut. */
            free(state->body);
            state->body = NULL;
            state->length = 0;
            start_discarding(server, state, connection, VH_DISCARD_LIMIT);
        }
        if (state->discarding) {
            state->overflow += chunk;
            return discarded_too_much(state) ? MHD_NO : MHD_YES;
        }
        if (state->length + chunk > state->capacity) {
            size_t capacity = state->capacity ? state->capacity * 2 : 16384;
            while (capacity < state->length + chunk) capacity *= 2;
            if (capacity > state->limit) capacity = state->limit;
            uint8_t *grown = realloc(state->body, capacity);
            if (!grown) return MHD_NO;
            state->body = grown;
            state->capacity = capacity;
        }
        memcpy(state->body + state->length, upload_data, chunk);
        state->length += chunk;
        return MHD_YES;
    }
    if (state->deferred) {
        /* Called again after vh_reply_finish resumed the connection: send what the worker answered. */
        if (!atomic_load(&state->deferred->finished)) return MHD_YES;
        vh_reply *reply = state->deferred;
        state->deferred = NULL;
        state->refused = 1;
        enum MHD_Result result = queue(connection, (unsigned)reply->status, finish_reply(reply));
        free(reply);
        return result;
    }
    if (state->refused) return MHD_YES;
    if (state->discarding) return refuse(server, state, connection, url, method);
    return answer(server, state, connection, url, method, state->body, state->length, 0);
}

static void completed(void *cls, struct MHD_Connection *connection, void **con_cls, enum MHD_RequestTerminationCode toe) {
    (void)connection;
    (void)toe;
    vh_server *server = cls;
    vh_state *state = *con_cls;
    if (!state) return;
    if (state->refusal) MHD_destroy_response(state->refusal);
    if (state->deferred) {
        /* The client went away while a worker held the reply: the worker still finishes it, and
           this thread must not free it under the worker. Such a connection is never completed while
           suspended (MHD resumes it first), so this is only reached after vh_reply_finish. */
        if (state->deferred->response) MHD_destroy_response(state->deferred->response);
        for (size_t i = 0; i < state->deferred->header_count * 2; i++) free(state->deferred->header_storage[i]);
        free(state->deferred);
    }
    free(state->body);
    free(state);
    *con_cls = NULL;
    atomic_fetch_sub(&server->in_flight, 1);
}

/* Once quiesced, every new connection is closed as it is accepted. MHD_quiesce_daemon is not
   used: on an epoll daemon with a thread pool (libmicrohttpd 0.9.75, Debian 12) it removes the
   listen socket from each worker's epoll set while the worker's own loop may be removing it too,
   and the loser's epoll_ctl fails with ENOENT, which MHD treats as fatal and aborts the process
   (an open MHD defect; seen here in HTTPServerTests' shutdown test under load, when the daemon
   still polled with epoll). Closing at accept works however the daemon polls. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen) {
    (void)addr;
    (void)addrlen;
    vh_server *server = cls;
    return atomic_load(&server->quiesced) ? MHD_NO : MHD_YES;
}

vh_server *vh_start(const char *host, uint16_t port, unsigned threads, unsigned idle_timeout_seconds,
                    unsigned connections_per_address, unsigned linger_seconds, vh_admit_fn admit, vh_handler_fn handler,
                    void *context, char *error) {
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct sockaddr *addr;
    /* poll, not epoll: on an epoll daemon (libmicrohttpd 0.9.75) a read shorter than the buffer
       is taken to mean the socket is drained, so a client's last bytes and its leaving that
       arrive together while the thread is busy leave the connection open, and counted against
       its address, until the idle timeout (HTTPServerTests.aClientLeavingWhileTheServerIsBusy-
       GivesItsPlaceBack). poll reports the pending end again. */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC | MHD_ALLOW_SUSPEND_RESUME;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        addr = (struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        addr = (struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(error, 256, "host '%s' is not an IPv4 or IPv6 address", host);
        return NULL;
    }
    vh_server *server = calloc(1, sizeof *server);
    if (!server) {
        snprintf(error, 256, "out of memory");
        return NULL;
    }
    server->admit = admit;
    server->handler = handler;
    server->context = context;
    server->linger_seconds = linger_seconds ? linger_seconds : 1;
    atomic_init(&server->in_flight, 0);
    atomic_init(&server->quiesced, 0);
    server->daemon = MHD_start_daemon(flags, port, accept_policy, server, access_handler, server,
                                      MHD_OPTION_SOCK_ADDR, addr,
                                      MHD_OPTION_THREAD_POOL_SIZE, (unsigned)(threads ? threads : 1),
                                      MHD_OPTION_CONNECTION_TIMEOUT, idle_timeout_seconds,
                                      MHD_OPTION_NOTIFY_COMPLETED, completed, server,
                                      MHD_OPTION_CONNECTION_LIMIT, (unsigned)4096,
                                      MHD_OPTION_PER_IP_CONNECTION_LIMIT, connections_per_address,
                                      MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024,
                                      MHD_OPTION_END);
    if (!server->daemon) {
        snprintf(error, 256, "cannot listen on %s port %u (in use, or not allowed)", host, (unsigned)port);
        free(server);
        return NULL;
    }
    return server;
}

uint16_t vh_port(const vh_server *server) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(server->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

void vh_quiesce(vh_server *server) { atomic_store(&server->quiesced, 1); }

long vh_in_flight(const vh_server *server) { return atomic_load(&((vh_server *)server)->in_flight); }

void vh_stop(vh_server *server) {
    MHD_stop_daemon(server->daemon);
    free(server);
}
