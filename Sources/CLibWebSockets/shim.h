// libwebsockets for Swift. Only the few LWS* wrapper files of DuelServer and
// DuelClient import this module: every importer re-parses libwebsockets.h and
// OpenSSL's headers, which is slow.
#ifndef QUIZDUEL_CLIBWEBSOCKETS_SHIM_H
#define QUIZDUEL_CLIBWEBSOCKETS_SHIM_H
#include <libwebsockets.h>
#include <string.h>

// LWS_PRE is an expression macro (padding before every lws_write buffer);
// Swift cannot import it.
static inline size_t quizduel_lws_pre(void) { return LWS_PRE; }

// Creation info and protocols are plain structs, but memset-zeroing and the
// union-heavy layout are simpler to fill in C. The caller keeps `protocols` and
// `retry` alive for the context's lifetime.
// The service loop. lws 4.1.6's own loop calls poll() over every socket on each
// wake-up; with thousands of connections that was most of the server's CPU
// (perf: sock_poll and tcp_poll once per socket per wake-up). Debian builds lws
// with the libev plugin, and libev's loop uses epoll, so a wake-up costs what
// the ready sockets cost. The loop is created here and handed to lws as a
// "foreign" loop: lws then installs no SIGINT watcher of its own (the server
// takes signals with sigwait), and the service thread can break the loop to stop.
#include <ev.h>
#include <stdlib.h>

// A new libev loop with the best backend (EVFLAG_AUTO: epoll on Linux).
static inline void *quizduel_ev_loop_new(void) { return ev_loop_new(EVFLAG_AUTO); }
// The least time between two polls of the loop: libev sleeps out the rest of it before it polls,
// so the events of that time are handled in one wake-up (ev_set_io_collect_interval). It never
// sleeps past a timer that is due.
static inline void quizduel_ev_collect(void *loop, double seconds) {
    ev_set_io_collect_interval((struct ev_loop *)loop, seconds);
}
// Runs the loop until quizduel_ev_break_all is called on its thread.
static inline void quizduel_ev_run(void *loop) { ev_run((struct ev_loop *)loop, 0); }
static inline void quizduel_ev_break_all(void *loop) { ev_break((struct ev_loop *)loop, EVBREAK_ALL); }
static inline void quizduel_ev_loop_destroy(void *loop) { ev_loop_destroy((struct ev_loop *)loop); }

// A timer of our own on the loop. Not lws_sul: lws 4.1.6's libev plugin re-arms
// its one ev_timer with ev_timer_set + ev_timer_start, which do nothing while
// that timer is active, so a deadline earlier than lws's next internal timer
// (pings, idle checks: seconds away) fired only when that one did (seen as
// 30 s stalls). ev_init/ev_timer_set are macros, hence these wrappers.
typedef void (*quizduel_timer_fn)(void *owner);
struct quizduel_ev_timer {
    ev_timer watcher;  // first member: the callback casts back from it
    quizduel_timer_fn fire;
    void *owner;
};

static void quizduel_ev_timer_cb(struct ev_loop *loop, ev_timer *watcher, int revents) {
    (void)loop; (void)revents;
    struct quizduel_ev_timer *timer = (struct quizduel_ev_timer *)watcher;
    timer->fire(timer->owner);
}

static inline void *quizduel_ev_timer_new(quizduel_timer_fn fire, void *owner) {
    struct quizduel_ev_timer *timer = calloc(1, sizeof *timer);
    if (!timer) return NULL;
    ev_init(&timer->watcher, quizduel_ev_timer_cb);
    timer->fire = fire;
    timer->owner = owner;
    return timer;
}

// (Re)arms the timer to fire once, `seconds` from now (0 or less: at once).
static inline void quizduel_ev_timer_arm(void *loop, void *timer, double seconds) {
    struct quizduel_ev_timer *t = (struct quizduel_ev_timer *)timer;
    ev_timer_stop((struct ev_loop *)loop, &t->watcher);
    ev_timer_set(&t->watcher, seconds > 0 ? seconds : 0., 0.);
    ev_timer_start((struct ev_loop *)loop, &t->watcher);
}

static inline void quizduel_ev_timer_free(void *loop, void *timer) {
    ev_timer_stop((struct ev_loop *)loop, &((struct quizduel_ev_timer *)timer)->watcher);
    free(timer);
}

// A prepare watcher: libev calls it once per turn of the loop, after the turn's callbacks and
// before it sleeps and polls again (the server writes what the turn queued from it).
// ev_prepare_init is a macro, hence these wrappers.
struct quizduel_ev_prepare {
    ev_prepare watcher;  // first member: the callback casts back from it
    quizduel_timer_fn fire;
    void *owner;
};

static void quizduel_ev_prepare_cb(struct ev_loop *loop, ev_prepare *watcher, int revents) {
    (void)loop; (void)revents;
    struct quizduel_ev_prepare *prepare = (struct quizduel_ev_prepare *)watcher;
    prepare->fire(prepare->owner);
}

static inline void *quizduel_ev_prepare_start(void *loop, quizduel_timer_fn fire, void *owner) {
    struct quizduel_ev_prepare *prepare = calloc(1, sizeof *prepare);
    if (!prepare) return NULL;
    ev_prepare_init(&prepare->watcher, quizduel_ev_prepare_cb);
    prepare->fire = fire;
    prepare->owner = owner;
    ev_prepare_start((struct ev_loop *)loop, &prepare->watcher);
    return prepare;
}

static inline void quizduel_ev_prepare_free(void *loop, void *prepare) {
    ev_prepare_stop((struct ev_loop *)loop, &((struct quizduel_ev_prepare *)prepare)->watcher);
    free(prepare);
}

static inline struct lws_context *quizduel_lws_create_context(
    int port, const char *interface, const struct lws_protocols *protocols,
    const lws_retry_bo_t *retry, void *user, unsigned int rx_buffer_size, void *ev_loop)
{
    struct lws_context_creation_info info;
    void *loops[1] = { ev_loop };
    memset(&info, 0, sizeof info);
    info.port = port;
    info.iface = interface;
    info.protocols = protocols;
    info.retry_and_idle_policy = retry;
    info.user = user;
    info.pt_serv_buf_size = rx_buffer_size;
    // No permessage-deflate (info.extensions stays NULL): it costs memory per
    // connection and has receive bugs in 4.1.6. No TLS here: put a TLS proxy
    // in front. DISABLE_IPV6 keeps "0.0.0.0" meaning what it says.
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_DISABLE_IPV6 | LWS_SERVER_OPTION_LIBEV;
    info.foreign_loops = loops;  // read during creation only
    info.fd_limit_per_thread = 0;
    return lws_create_context(&info);
}

// A client-only context (no listening port).
static inline struct lws_context *quizduel_lws_create_client_context(
    const struct lws_protocols *protocols, void *user, void *ev_loop)
{
    struct lws_context_creation_info info;
    void *loops[1] = { ev_loop };
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.user = user;
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6 | LWS_SERVER_OPTION_LIBEV;
    info.foreign_loops = loops;
    return lws_create_context(&info);
}

// Starts a client connection; the struct has many fields that must be zero.
static inline struct lws *quizduel_lws_client_connect(
    struct lws_context *context, const char *address, int port, const char *path,
    const char *host, const char *protocol, void *opaque_user_data)
{
    struct lws_client_connect_info info;
    memset(&info, 0, sizeof info);
    info.context = context;
    info.address = address;
    info.port = port;
    info.path = path;
    info.host = host;
    info.origin = host;
    info.protocol = protocol;
    info.opaque_user_data = opaque_user_data;
    // No validity timers (lws's default pings after 300 s): lws 4.1.6 inserts each
    // into one sorted list by walking it, which costs O(connections) per connection
    // for the load-test bots. The server pings; lws answers its pings by itself.
    static const lws_retry_bo_t no_validity_checks;
    info.retry_and_idle_policy = &no_validity_checks;
    return lws_client_connect_via_info(&info);
}

// Writes an HTTP response with a body in one go (headers, then body). Returns
// non-zero when the connection must be closed.
static inline int quizduel_lws_http_respond(
    struct lws *wsi, unsigned int status, const char *content_type,
    const unsigned char *body, size_t body_length)
{
    unsigned char buffer[LWS_PRE + 1024];
    unsigned char *start = buffer + LWS_PRE, *p = start, *end = buffer + sizeof buffer - 1;
    if (lws_add_http_common_headers(wsi, status, content_type, body_length, &p, end))
        return 1;
    if (lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)"no-store", 8, &p, end))
        return 1;
    if (lws_finalize_write_http_header(wsi, start, &p, end))
        return 1;
    // lws_write needs LWS_PRE bytes of headroom before the payload.
    unsigned char *copy = malloc(LWS_PRE + body_length + 1);
    if (!copy) return 1;
    memcpy(copy + LWS_PRE, body, body_length);
    int written = lws_write(wsi, copy + LWS_PRE, body_length, LWS_WRITE_HTTP_FINAL);
    free(copy);
    if (written != (int)body_length) return 1;
    return lws_http_transaction_completed(wsi);
}
#endif
