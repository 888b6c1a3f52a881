/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
// hier-delayline: a constant-delay line for the emulated cluster's backbone.
//
// What it is
//   A small NFQUEUE program. It binds one netfilter queue in the network
//   namespace it runs in, holds every packet the kernel hands it and lets it
//   go on (verdict NF_ACCEPT) exactly DELAY after the packet reached the
//   queue. Packets leave in the order they arrived (FIFO); with a constant
//   delay that is also the order of their release times, so the line never
//   reorders.
//
// Why
//   The emulated multi-node cluster (network namespaces, veth pairs and
//   bridges on one machine) needs a slow link between its clusters. The usual
//   tool, `tc qdisc ... netem delay`, is not available: the kernel we run on
//   is built without CONFIG_NET_SCH_NETEM. NFQUEUE (xt_NFQUEUE, through
//   iptables-nft's compat layer) and tbf are, so the delay comes from here and
//   the bandwidth limit from a `tc tbf` shaper.
//
// How it is used
//   In the router namespace that joins two cluster bridges (routed, so the
//   traffic crosses the IP FORWARD hook):
//
//     sysctl -w net.ipv4.ip_forward=1
//     hier-delayline --queue 0 --delay 5 &                     # bind first ...
//     iptables -A FORWARD -i br-a -o br-b -j NFQUEUE --queue-num 0  # ... then
//     iptables -A FORWARD -i br-b -o br-a -j NFQUEUE --queue-num 0  # divert
//     tc qdisc add dev br-b root tbf rate 100mbit burst 32kb latency 50ms
//     tc qdisc add dev br-a root tbf rate 100mbit burst 32kb latency 50ms
//
//   Keep the -i/-o: this kernel has br_netfilter built in and
//   net.bridge.bridge-nf-call-iptables is 1 in every namespace, so traffic
//   bridged between two ports of br-a (inside one cluster) passes the
//   FORWARD chain too (as -i br-a -o br-a); a bare `-j NFQUEUE` would delay
//   it as well.
//
//   Every traversal of the router then costs DELAY ms one way (a ping-pong
//   crosses twice). While the rule is in place and nothing is bound to the
//   queue, the kernel drops the diverted packets (add --queue-bypass to the
//   rule to let them through undelayed instead).
//
//   hier-delayline --queue N --delay MS [--queue-maxlen K] [--no-rt]
//     --queue N         NFQUEUE number, 0..65535
//     --delay MS        one-way delay in milliseconds, fractional allowed
//     --queue-maxlen K  packets the kernel may hold for us (default 4096;
//                       held packets count against it, so at least
//                       delay x packet rate: 5 ms at 100 Mbit/s of full-size
//                       frames is ~45, of 64-byte frames ~1000)
//     --no-rt           do not try SCHED_FIFO for the two threads
//
//   Prints "hier-delayline: queue N, delay X ms" on stderr once bound.
//   SIGTERM/SIGINT: accepts every packet still held, unbinds, exits 0, after
//   one line of statistics on stderr (packets, kernel-side drops read from
//   /proc/net/netfilter/nfnetlink_queue, ENOBUFS seen, packets that arrived
//   in the last microseconds and were dropped by the unbind, release
//   lateness, whether SCHED_FIFO was granted). Bad arguments: exit 2; queue
//   cannot be bound (not root, taken, no kernel support): exit 1.
//
// Design: two threads and a mutex/condvar-protected deque.
//   * The receiver blocks in poll/recv on the queue's netlink socket, stamps
//     each packet with CLOCK_MONOTONIC the moment it is read and appends
//     {packet id, release time} to the deque.
//   * The releaser waits on the condvar until the head's release time
//     (pthread_cond_timedwait on CLOCK_MONOTONIC: an absolute hrtimer wait,
//     as precise as clock_nanosleep(TIMER_ABSTIME), and a shutdown can wake
//     it), then accepts every packet that is due.
//   A verdict is not a cheap syscall: the kernel re-injects the packet in the
//   caller's context and runs the rest of the forwarding path (routing,
//   the tbf enqueue, the veth transmit) inside that sendmsg. In a single
//   poll/timerfd loop that work would delay reading, and so time-stamping,
//   the packets that arrive meanwhile; with two threads on the two cores
//   stamping never waits for re-injection. The lock is held only to push or
//   pop a 16-byte entry.
//   All packets due at once are accepted with one nfq_set_verdict_batch
//   (accepts every queued id up to the given one, in queue order), which is
//   exactly "the due FIFO prefix" and costs one syscall per wake-up rather
//   than one per packet.
//
// Precision
//   The timer slack of both threads is set to 1 ns (default 50 us), and both
//   try SCHED_FIFO (priority 10) so that busy-polling MPI ranks on the same
//   two cores cannot push a release back by scheduler time slices; without
//   the privilege (or with --no-rt) they run as normal threads. Measured on
//   the 2-core VM with three busy loops running: mean lateness 24 us, max
//   62 us with SCHED_FIFO; 805 us and 8.7 ms without. The kernel runs with
//   preempt=none, so even an RT thread waits for a busy kernel path to yield:
//   under heavy load expect ~0.1-1 % of packets more than 100 us late and
//   rare millisecond outliers (the exit line counts them). The arrival stamp
//   is taken in user space when the packet is read, so it is late by the
//   queue-to-reader wake-up (20-80 us); together with the release lateness
//   and the re-injection a traversal costs about DELAY + 0.1 ms (ping:
//   10.2-10.4 ms for 2 x 5 ms, 1.23 ms for 2 x 0.5 ms; 0.06-0.09 ms without
//   the delay line).
//
// Copy mode is NFQNL_COPY_META: the verdict accepts the packet unchanged, so
// no payload is copied to user space. The queue is configured with
// NFQA_CFG_F_GSO so the kernel hands GSO packets over whole instead of
// segmenting them first (fine without the payload). The socket receive buffer
// is raised (SO_RCVBUFFORCE, falling back to SO_RCVBUF) so a burst waiting to
// be read is not lost; a loss shows as ENOBUFS on recv and in the exit line.

// glibc's <netinet/in.h> must come before the kernel's <linux/in.h>.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink_queue.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>
#include <string>

namespace {

const char *const kProg = "hier-delayline";

struct Options {
    long queue = -1;
    double delay_ms = -1.0;
    long maxlen = 4096;
    bool rt = true;
};

[[noreturn]] void usage_error(const std::string &msg) {
    std::fprintf(stderr, "%s: %s\n", kProg, msg.c_str());
    std::exit(2);
}

void print_usage(FILE *out) {
    std::fprintf(out,
                 "usage: %s --queue N --delay MS [--queue-maxlen K] [--no-rt]\n"
                 "  --queue N         NFQUEUE number to bind, 0..65535\n"
                 "  --delay MS        one-way delay in milliseconds (e.g. 5 or 0.5)\n"
                 "  --queue-maxlen K  packets the kernel may hold (default 4096)\n"
                 "  --no-rt           do not try SCHED_FIFO\n",
                 kProg);
}

long parse_long(const std::string &opt, const std::string &val, long lo, long hi,
                const char *form) {
    errno = 0;
    char *end = nullptr;
    long v = std::strtol(val.c_str(), &end, 10);
    if (val.empty() || *end != '\0' || errno != 0 || v < lo || v > hi)
        usage_error(opt + " expects " + form + ", got '" + val + "'");
    return v;
}

Options parse_args(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        std::string val;
        bool has_val = false;
        auto eq = arg.find('=');
        if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            val = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
            has_val = true;
        }
        auto need = [&](const char *form) {
            if (has_val) return;
            if (i + 1 >= argc)
                usage_error(arg + " expects " + form + " (missing value)");
            val = argv[++i];
        };
        if (arg == "--queue") {
            need("a queue number 0..65535");
            o.queue = parse_long(arg, val, 0, 65535, "a queue number 0..65535");
        } else if (arg == "--delay") {
            const char *form = "a delay in milliseconds, a number >= 0 (e.g. 5 or 0.5)";
            need(form);
            errno = 0;
            char *end = nullptr;
            double d = std::strtod(val.c_str(), &end);
            if (val.empty() || *end != '\0' || errno != 0 || !std::isfinite(d) || d < 0 ||
                d > 3600e3)
                usage_error(arg + " expects " + form + ", got '" + val + "'");
            o.delay_ms = d;
        } else if (arg == "--queue-maxlen") {
            need("a packet count 1..1048576");
            o.maxlen = parse_long(arg, val, 1, 1048576, "a packet count 1..1048576");
        } else if (arg == "--no-rt" && !has_val) {
            o.rt = false;
        } else if (arg == "-h" || arg == "--help") {
            print_usage(stdout);
            std::exit(0);
        } else {
            usage_error("unknown argument '" + std::string(argv[i]) +
                        "'; usage: --queue N --delay MS [--queue-maxlen K] [--no-rt]");
        }
    }
    if (o.queue < 0) usage_error("--queue N is required (N = NFQUEUE number 0..65535)");
    if (o.delay_ms < 0) usage_error("--delay MS is required (MS = milliseconds, e.g. 5 or 0.5)");
    return o;
}

struct Held {
    uint32_t id;
    int64_t due_ns;  // CLOCK_MONOTONIC
};

int64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

timespec to_timespec(int64_t ns) {
    timespec ts;
    ts.tv_sec = time_t(ns / 1000000000);
    ts.tv_nsec = long(ns % 1000000000);
    return ts;
}

struct State {
    nfq_handle *h = nullptr;
    nfq_q_handle *qh = nullptr;
    int fd = -1;
    int stop_fd = -1;  // eventfd: wakes the receiver for shutdown
    int64_t delay_ns = 0;
    bool rt = true;

    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cv;
    std::deque<Held> held;  // FIFO, due times non-decreasing
    bool flush = false;     // set at shutdown: accept everything now, then exit
    bool receiver_done = false;

    // receiver-only counters
    uint64_t received = 0;
    uint64_t enobufs = 0;
    // releaser-only counters
    uint64_t released = 0;
    uint64_t verdict_errors = 0;
    uint64_t wakeups = 0;
    double late_sum_us = 0;
    double late_max_us = 0;
    uint64_t late_100us = 0;  // released more than 100 us late
    uint64_t late_1ms = 0;    // released more than 1 ms late

    int fatal_errno = 0;  // set by a thread that fails; main then exits 1
    int rt_threads = 0;   // threads that got SCHED_FIFO
    bool closing = false; // main is unbinding: packets read now were dropped by the kernel
    uint64_t lost_at_unbind = 0;
};

State g;

void tune_thread() {
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    if (g.rt) {
        sched_param sp{};
        sp.sched_priority = 10;
        if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0) {  // best effort
            pthread_mutex_lock(&g.mu);
            ++g.rt_threads;
            pthread_mutex_unlock(&g.mu);
        }
    }
}

void request_shutdown() { kill(getpid(), SIGTERM); }

int on_packet(nfq_q_handle *, nfgenmsg *, nfq_data *nfa, void *) {
    nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
    if (!ph) return 0;
    if (g.closing) {  // read by nfq_destroy_queue's own receive loop
        ++g.lost_at_unbind;
        return 0;
    }
    Held e{ntohl(ph->packet_id), now_ns() + g.delay_ns};
    pthread_mutex_lock(&g.mu);
    bool was_empty = g.held.empty();
    g.held.push_back(e);
    if (was_empty) pthread_cond_signal(&g.cv);
    pthread_mutex_unlock(&g.mu);
    ++g.received;
    return 0;
}

// Reads everything in the socket. Returns false on a fatal error.
bool drain(char *buf, size_t len) {
    for (;;) {
        ssize_t n = recv(g.fd, buf, len, MSG_DONTWAIT);
        if (n >= 0) {
            nfq_handle_packet(g.h, buf, int(n));
            continue;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
        if (errno == EINTR) continue;
        if (errno == ENOBUFS) {  // the kernel could not deliver some: they are dropped
            ++g.enobufs;
            continue;
        }
        g.fatal_errno = errno;
        return false;
    }
}

void *receiver(void *) {
    tune_thread();
    static char buf[256 * 1024] __attribute__((aligned));
    pollfd pfd[2] = {{g.fd, POLLIN, 0}, {g.stop_fd, POLLIN, 0}};
    for (;;) {
        int r = poll(pfd, 2, -1);
        if (r < 0) {
            if (errno == EINTR) continue;
            g.fatal_errno = errno;
            request_shutdown();
            break;
        }
        if (pfd[1].revents) {  // shutdown: take what is already waiting, then stop
            drain(buf, sizeof buf);
            break;
        }
        if (pfd[0].revents & (POLLERR | POLLIN)) {
            if (!drain(buf, sizeof buf)) {
                std::fprintf(stderr, "%s: recv on the queue socket failed: %s\n", kProg,
                             std::strerror(g.fatal_errno));
                request_shutdown();
                break;
            }
        }
    }
    pthread_mutex_lock(&g.mu);
    g.receiver_done = true;
    pthread_cond_signal(&g.cv);
    pthread_mutex_unlock(&g.mu);
    return nullptr;
}

void *releaser(void *) {
    tune_thread();
    pthread_mutex_lock(&g.mu);
    for (;;) {
        if (g.held.empty()) {
            if (g.flush && g.receiver_done) break;
            pthread_cond_wait(&g.cv, &g.mu);
            continue;
        }
        int64_t due = g.held.front().due_ns;
        int64_t now = now_ns();
        if (!g.flush && now < due) {
            timespec ts = to_timespec(due);
            pthread_cond_timedwait(&g.cv, &g.mu, &ts);
            continue;  // re-check: woken early by a push, a flush, or on time
        }
        // Accept the due prefix (everything at flush) with one batch verdict.
        uint32_t last = 0;
        size_t n = 0;
        while (!g.held.empty() && (g.flush || g.held.front().due_ns <= now)) {
            const Held &e = g.held.front();
            if (!g.flush) {
                double late = double(now - e.due_ns) / 1e3;
                g.late_sum_us += late;
                if (late > g.late_max_us) g.late_max_us = late;
                if (late > 100) ++g.late_100us;
                if (late > 1000) ++g.late_1ms;
            }
            last = e.id;
            g.held.pop_front();
            ++n;
        }
        pthread_mutex_unlock(&g.mu);
        if (nfq_set_verdict_batch(g.qh, last, NF_ACCEPT) < 0) ++g.verdict_errors;
        g.released += n;
        ++g.wakeups;
        pthread_mutex_lock(&g.mu);
    }
    pthread_mutex_unlock(&g.mu);
    return nullptr;
}

// Kernel-side counters of our queue, from /proc/net/netfilter/nfnetlink_queue
// (per network namespace): queue_dropped = queue full, user_dropped = could
// not be delivered to our socket (receive buffer full).
bool queue_stats(long queue, unsigned long *dropped, unsigned long *user_dropped) {
    std::ifstream f("/proc/net/netfilter/nfnetlink_queue");
    std::string line;
    while (std::getline(f, line)) {
        std::istringstream in(line);
        unsigned long num, portid, total, mode, range, qd, ud;
        if (in >> num >> portid >> total >> mode >> range >> qd >> ud && long(num) == queue) {
            *dropped = qd;
            *user_dropped = ud;
            return true;
        }
    }
    return false;
}

std::string fmt_ms(double ms) {
    char b[64];
    std::snprintf(b, sizeof b, "%.6g", ms);
    return b;
}

}  // namespace

int main(int argc, char **argv) {
    Options opt = parse_args(argc, argv);
    g.delay_ns = std::llround(opt.delay_ms * 1e6);
    g.rt = opt.rt;

    // Signals are taken synchronously by main (sigwait); threads inherit the mask.
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
    signal(SIGPIPE, SIG_IGN);

    const std::string qname = "queue " + std::to_string(opt.queue);
    g.h = nfq_open();
    if (!g.h) {
        std::fprintf(stderr, "%s: cannot bind %s: nfq_open failed: %s\n", kProg, qname.c_str(),
                     std::strerror(errno));
        return 1;
    }
    g.qh = nfq_create_queue(g.h, uint16_t(opt.queue), &on_packet, nullptr);
    if (!g.qh) {
        int e = errno;
        const char *why = e == EPERM ? " (needs root / CAP_NET_ADMIN in this network namespace,"
                                         " or another program is bound to it)"
                          : e == EBUSY ? " (another program is bound to it)"
                          : e == ENOENT || e == EPROTONOSUPPORT || e == EOPNOTSUPP
                              ? " (no nfnetlink_queue support in the kernel?)"
                              : "";
        std::fprintf(stderr, "%s: cannot bind %s: %s%s\n", kProg, qname.c_str(),
                     std::strerror(e), why);
        nfq_close(g.h);
        return 1;
    }
    if (nfq_set_mode(g.qh, NFQNL_COPY_META, 0) < 0) {
        std::fprintf(stderr, "%s: cannot bind %s: setting copy mode META failed: %s\n", kProg,
                     qname.c_str(), std::strerror(errno));
        nfq_destroy_queue(g.qh);
        nfq_close(g.h);
        return 1;
    }
    if (nfq_set_queue_maxlen(g.qh, uint32_t(opt.maxlen)) < 0)
        std::fprintf(stderr, "%s: warning: cannot set queue maxlen %ld: %s\n", kProg, opt.maxlen,
                     std::strerror(errno));
    nfq_set_queue_flags(g.qh, NFQA_CFG_F_GSO, NFQA_CFG_F_GSO);  // best effort (kernel >= 3.10)

    g.fd = nfq_fd(g.h);
    // Socket buffer: ~1 KiB of truesize per small queue message; room for the
    // whole queue twice over, at least 4 MiB. Root may exceed rmem_max.
    {
        int want = int(std::max<long>(4L << 20, std::min<long>(opt.maxlen * 2048L, 256L << 20)));
        if (setsockopt(g.fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof want) < 0)
            setsockopt(g.fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof want);  // capped at rmem_max
    }

    g.stop_fd = eventfd(0, EFD_CLOEXEC);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&g.cv, &ca);
    pthread_condattr_destroy(&ca);

    std::fprintf(stderr, "%s: %s, delay %s ms\n", kProg, qname.c_str(),
                 fmt_ms(opt.delay_ms).c_str());

    pthread_t rx, tx;
    if (pthread_create(&tx, nullptr, releaser, nullptr) != 0 ||
        pthread_create(&rx, nullptr, receiver, nullptr) != 0) {
        std::fprintf(stderr, "%s: cannot start threads\n", kProg);
        return 1;
    }

    int sig = 0;
    sigwait(&sigs, &sig);

    // Shutdown: stop the receiver (it reads what is already waiting), then
    // let the releaser accept everything still held, then unbind.
    uint64_t one = 1;
    if (write(g.stop_fd, &one, sizeof one) < 0) { /* cannot happen */ }
    pthread_join(rx, nullptr);
    pthread_mutex_lock(&g.mu);
    g.flush = true;
    pthread_cond_signal(&g.cv);
    pthread_mutex_unlock(&g.mu);
    pthread_join(tx, nullptr);

    // Packets that reached the queue after the receiver stopped are still
    // held by the kernel, and unbinding drops them: accept them too, until
    // the socket is empty, then unbind at once. (Under steady traffic a few
    // may still arrive in between; they are counted as lost at unbind.)
    {
        static char buf[64 * 1024];
        for (int round = 0; round < 100; ++round) {
            drain(buf, sizeof buf);
            if (g.held.empty()) break;
            if (nfq_set_verdict_batch(g.qh, g.held.back().id, NF_ACCEPT) < 0) ++g.verdict_errors;
            g.released += g.held.size();
            g.held.clear();
        }
    }

    unsigned long qdrop = 0, udrop = 0;
    bool have_stats = queue_stats(opt.queue, &qdrop, &udrop);
    g.closing = true;
    nfq_destroy_queue(g.qh);
    nfq_close(g.h);

    double late_mean = g.released ? g.late_sum_us / double(g.released) : 0.0;
    std::fprintf(stderr,
                 "%s: exit: %llu packets received, %llu released in %llu wake-ups; "
                 "dropped: queue-full %s, socket-overflow %s, ENOBUFS %llu, verdict errors %llu, "
                 "at unbind %llu; lateness mean %.1f us, max %.1f us, >100 us %llu, >1 ms %llu; "
                 "SCHED_FIFO %s\n",
                 kProg, (unsigned long long)g.received, (unsigned long long)g.released,
                 (unsigned long long)g.wakeups,
                 have_stats ? std::to_string(qdrop).c_str() : "?",
                 have_stats ? std::to_string(udrop).c_str() : "?",
                 (unsigned long long)g.enobufs, (unsigned long long)g.verdict_errors,
                 (unsigned long long)g.lost_at_unbind, late_mean, g.late_max_us,
                 (unsigned long long)g.late_100us, (unsigned long long)g.late_1ms,
                 !g.rt ? "off" : g.rt_threads == 2 ? "yes" : "no (not permitted)");
    return g.fatal_errno ? 1 : 0;
}
