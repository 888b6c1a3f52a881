/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * coll/hier: the component and module types the C glue shares, and the
 * functions its files call in each other.
 *
 * The glue is C because Open MPI's internal headers are not valid C++; it
 * reaches the C++17 core only through core/hier_core.h.
 */
#ifndef MCA_COLL_HIER_H
#define MCA_COLL_HIER_H

#include "ompi_config.h"

#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/request/request.h"

#include "hier_core.h"

BEGIN_C_DECLS

/*
 * The collectives whose previous implementation (function and module) hier
 * keeps at enable: X(name, hier's function, or NULL when hier only borrows
 * the previous one), in their blocking, nonblocking and persistent forms.
 * Replacing one more collective is three lines here plus its
 * coll_hier_<name>.c.
 */
#define MCA_COLL_HIER_COLLECTIVES(X)                                     \
    X(allgather, mca_coll_hier_allgather) /* also gathers the topology */ \
    X(allreduce, mca_coll_hier_allreduce)                                \
    X(alltoall, mca_coll_hier_alltoall)                                  \
    X(alltoallv, mca_coll_hier_alltoallv)                                \
    X(barrier, mca_coll_hier_barrier)                                    \
    X(gather, mca_coll_hier_gather)                                      \
    X(scatter, mca_coll_hier_scatter)                                    \
    X(iallgather, mca_coll_hier_iallgather)                              \
    X(iallreduce, mca_coll_hier_iallreduce)                              \
    X(ialltoall, mca_coll_hier_ialltoall)                                \
    X(ialltoallv, mca_coll_hier_ialltoallv)                              \
    X(ibarrier, mca_coll_hier_ibarrier)                                  \
    X(igather, mca_coll_hier_igather)                                    \
    X(iscatter, mca_coll_hier_iscatter)                                  \
    X(allgather_init, mca_coll_hier_allgather_init)                      \
    X(allreduce_init, mca_coll_hier_allreduce_init)                      \
    X(alltoall_init, mca_coll_hier_alltoall_init)                        \
    X(alltoallv_init, mca_coll_hier_alltoallv_init)                      \
    X(barrier_init, mca_coll_hier_barrier_init)                          \
    X(gather_init, mca_coll_hier_gather_init)                            \
    X(scatter_init, mca_coll_hier_scatter_init)

#define MCA_COLL_HIER_PREVIOUS_FIELDS(name, hier_fn)                     \
    mca_coll_base_module_##name##_fn_t name;                             \
    mca_coll_base_module_t *name##_module;

/* What Open MPI would have used without hier. */
typedef struct mca_coll_hier_previous_t {
    MCA_COLL_HIER_COLLECTIVES(MCA_COLL_HIER_PREVIOUS_FIELDS)
} mca_coll_hier_previous_t;

/* The coll interface this component implements: 2.4.0 in Open MPI 5.0 (whose
 * selection takes no other), 2.0.0 in 4.1. */
#if defined(MCA_COLL_BASE_VERSION_2_4_0)
#    define MCA_COLL_HIER_BASE_VERSION MCA_COLL_BASE_VERSION_2_4_0
#else
#    define MCA_COLL_HIER_BASE_VERSION MCA_COLL_BASE_VERSION_2_0_0
#endif

/* Lines of output (verbose lines, error reports) are at most this long. */
#define MCA_COLL_HIER_LINE_MAX 512

typedef struct mca_coll_hier_component_t {
    mca_coll_base_component_t super;

    /* MCA parameters */
    int priority;                    /* coll_hier_priority */
    int verbose;                     /* coll_hier_verbose */
    int window;                      /* coll_hier_window */
    int auto_trial_calls;            /* coll_hier_auto_trial_calls */
    int backbone_piece;              /* coll_hier_backbone_piece */
    char *node_map;                  /* coll_hier_node_map */
    char *cluster_map;               /* coll_hier_cluster_map */
    char *cost;                      /* coll_hier_cost */
    char *hypercube_embedding;       /* coll_hier_hypercube_embedding */
    char *link_costs;                /* coll_hier_link_costs */
    char *torus_dims;                /* coll_hier_torus_dims */
    char *dynamic_rules;             /* coll_hier_dynamic_rules */
    int algorithm[HIER_OP_COUNT];    /* coll_hier_<op>_algorithm */
    char *algorithm_invalid[HIER_OP_COUNT];  /* an unknown value given, if any */

    int priority_var;                /* index of coll_hier_priority */
    int output;                      /* stream of the verbose lines */
    /* Priority comm_query answers with, or -1 when hier was not asked for. */
    int selection_priority;
    /* hier is the only component in the coll list: collectives lack a provider. */
    bool listed_alone;
    /* Built for another Open MPI series than the one that loaded it: inert. */
    bool other_series;
    /* Every setting the core uses, parsed once per process when
     * MPI_COMM_WORLD is queried (coll_hier_settings.c); NULL before. */
    hier_settings_t *settings;
} mca_coll_hier_component_t;

OMPI_DECLSPEC extern mca_coll_hier_component_t mca_coll_hier_component;

/* Buffers a call lends the core's schedule: where block 0 starts, elements
 * per block, their datatype and extent. Variable blocks (alltoallv): with
 * counts, block b is counts[b] elements at element displs[b] of base (a
 * user's buffer); with offsets, block b is the bytes [offsets[b],
 * offsets[b + 1]) of base, packed (dtype MPI_PACKED), and consecutive blocks
 * are contiguous. */
typedef struct mca_coll_hier_layout_t {
    char *base;
    size_t count;
    struct ompi_datatype_t *dtype;
    ptrdiff_t extent;
    const int *counts;
    const int *displs;
    const size_t *offsets;
} mca_coll_hier_layout_t;

/* A message in flight: the requests it posted (one, or one per piece), and,
 * when it travels in pieces from or to a non-contiguous layout, the packed
 * copy (freed when it completes) and, for a receive, where to unpack it. */
typedef struct mca_coll_hier_message_t {
    size_t requests;
    char *staged;
    size_t staged_bytes;
    char *unpack_ptr;
    size_t unpack_count;
    struct ompi_datatype_t *unpack_dtype;
} mca_coll_hier_message_t;

/* What one call runs with, grown on demand and reused call after call: the
 * requests and messages in flight and the scratch buffers. The module has
 * one for its blocking calls; each nonblocking or persistent request has its
 * own, so that calls in flight together share nothing. */
typedef struct mca_coll_hier_work_t {
    ompi_request_t **requests;    /* [request_head, request_count) in flight */
    size_t request_head;
    size_t request_count;
    size_t request_capacity;
    mca_coll_hier_message_t *messages;  /* [message_head, message_count) in flight */
    size_t message_head;
    size_t message_count;
    size_t message_capacity;
    void *tmp;             /* the schedule's TMP blocks */
    size_t tmp_size;
    void *in_place;        /* copy of the receive buffer for MPI_IN_PLACE */
    size_t in_place_size;
    void *offsets;         /* alltoallv: the in-place copy's packed offsets */
    size_t offsets_size;
    hier_alltoallv_t *alltoallv;  /* alltoallv: the core's program, made at its first call */
} mca_coll_hier_work_t;

/* The forms of a collective: each has its own verbose line. */
typedef enum {
    MCA_COLL_HIER_BLOCKING = 0,   /* MPI_Alltoall */
    MCA_COLL_HIER_NONBLOCKING,    /* MPI_Ialltoall */
    MCA_COLL_HIER_PERSISTENT,     /* MPI_Alltoall_init (4.1: MPIX_Alltoall_init) */
    MCA_COLL_HIER_FORMS
} mca_coll_hier_form_t;

/* What coll_hier_measure.c keeps between a trial's calls: this rank's
 * clock's offset to rank 0's, what synchronizing took, how long after the
 * last arrival this rank had the last start's allreduce, whether it was late
 * for that start, and the trial's late starts so far. */
typedef struct mca_coll_hier_trial_clock_t {
    double offset;
    double sync_seconds;
    double result_delay;
    double late;
    int starts_late;
} mca_coll_hier_trial_clock_t;

/* What each rank contributes to the one allgather a communicator's topology
 * is gathered with (coll_hier_topology.c). */
#define MCA_COLL_HIER_FACTS 5

typedef struct mca_coll_hier_module_t {
    mca_coll_base_module_t super;

    mca_coll_hier_previous_t previous;

    /* The settings in force when the communicator was created: a later
     * MPI_T write of coll_hier_<op>_algorithm or coll_hier_window applies
     * to communicators created after it. */
    int algorithm[HIER_OP_COUNT];
    int window;
    /* The window of the call being run: the one in force, or a rule's
     * (coll_hier_dynamic_rules), set by mca_coll_hier_choose. */
    int call_window;
    /* The communicator this module serves (set at enable): what the
     * agreements reduce over and the verbose lines name. */
    struct ompi_communicator_t *comm;
    /* Bytes per piece of a message between clusters; 0: whole messages. */
    size_t backbone_piece;

    /* The core's communicator (topology, decisions, schedule cache), built
     * at the first call needing it (coll_hier_topology.c). */
    int topology_state;
    hier_comm_t *topology;
    /* why there is none: when gathering failed, or, while it has not
     * started, why a nonblocking call cannot start it */
    const char *topology_error;
    /* The gathering a nonblocking call started (MCA_COLL_HIER_TOPOLOGY_
     * GATHERING): the previous module's allgather in flight, what it
     * gathers into, and which call started it, when; the nonblocking and
     * persistent calls whose decision waits for it (queued: now; waited:
     * since it started), which decide in order once it is known
     * (coll_hier_request.c). */
    struct {
        ompi_request_t *request;
        int64_t mine[MCA_COLL_HIER_FACTS];
        int64_t *facts;
        char started_by[32];
        double start;
        int queued;
        int waited;
    } gathering;
    /* Every rank's job-wide node, for the link-cost probes the core may ask
     * for later (coll_hier_topology.c). */
    int *job_nodes;
    /* The topology needed the latency probe (for the verbose line). */
    bool topology_probed;

    /* A hash of the last verbose line rank 0 printed for each form of each
     * collective; 0: none yet. */
    uint64_t last_line_hash[MCA_COLL_HIER_FORMS][HIER_OP_COUNT];

    /* The common start of a trial's calls (coll_hier_measure.c). */
    mca_coll_hier_trial_clock_t trial_clock;

    /* What blocking calls run with (freed at destruct). */
    mca_coll_hier_work_t work;
} mca_coll_hier_module_t;

OBJ_CLASS_DECLARATION(mca_coll_hier_module_t);

/* module->topology_state */
enum {
    MCA_COLL_HIER_TOPOLOGY_UNKNOWN = 0,
    MCA_COLL_HIER_TOPOLOGY_GATHERING,
    MCA_COLL_HIER_TOPOLOGY_READY,
    MCA_COLL_HIER_TOPOLOGY_FAILED
};

/* coll_hier_module.c: the module's lifecycle */
int mca_coll_hier_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_hier_comm_query(struct ompi_communicator_t *comm,
                                                 int *priority);

/* coll_hier_settings.c: parses the settings once per process (at
 * MPI_COMM_WORLD's query; in_use: hier was asked for) into
 * mca_coll_hier_component.settings, and world rank 0 says what is wrong
 * with them, and with the algorithm names and the coll list, one line
 * each. */
void mca_coll_hier_settings_once(bool in_use);

/* coll_hier_topology.c: gathers what the core's communicator needs (nodes,
 * clusters, host names, the probes' measurements, agreement on the cost
 * file and the rules) and creates it in module->topology, once: sets
 * module->topology_state, and module->topology_error on failure.
 * Collective over comm. */
void mca_coll_hier_gather_topology(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm);
/* coll_hier_topology.c: the same from a nonblocking or persistent call
 * (named call, "ialltoall"), which may not wait for the other ranks: the
 * first such call starts the gathering (the previous module's nonblocking
 * allgather), and the calls wait for it (coll_hier_request.c); the
 * requests' progress (mca_coll_hier_gathering_test) or the first blocking
 * collective on comm, whichever comes first, completes it. Where the
 * settings need more than the allgather (host names, a probe, a cost
 * file's agreement), nothing starts: module->topology_error says so, and
 * the first blocking collective gathers. */
void mca_coll_hier_gather_topology_nonblocking(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                               const char *call);
/* coll_hier_topology.c: whether the gathering a nonblocking call started
 * is over (module->topology_state no longer MCA_COLL_HIER_TOPOLOGY_
 * GATHERING): when its allgather has completed, builds the topology from
 * the facts gathered, locally (every rank has the same facts). Never
 * waits; called from the requests' progress. */
bool mca_coll_hier_gathering_test(mca_coll_hier_module_t *module);
/* coll_hier_topology.c: a gathering still in flight when the module ends
 * is completed first (every rank started it). */
void mca_coll_hier_gathering_release(mca_coll_hier_module_t *module);

/* coll_hier_measure.c: the one agreement every part of the glue uses:
 * values (count of dtype) become their reduction by op over the module's
 * communicator, in place, through the previous module's allreduce (never
 * comm->c_coll's, which may be hier's own). OMPI_ERR_NOT_SUPPORTED without
 * one. Collective. */
int mca_coll_hier_agree(const mca_coll_hier_module_t *module, void *values, int count,
                        struct ompi_datatype_t *dtype, struct ompi_op_t *op);
/* coll_hier_measure.c: records a measured call in the core's trial; after
 * the trial's last call so far, the core agrees on the times with the other
 * ranks (its agree_max) and concludes (HIER_TRIAL_CONCLUDED, the class's
 * choice in *concluded), fails to agree (HIER_TRIAL_UNAGREED, the fallback
 * in *concluded) or goes on (HIER_TRIAL_EXTENDED, also while the trial has
 * calls left). */
int mca_coll_hier_trial_record(mca_coll_hier_module_t *module, hier_op_t op, size_t block_bytes, int trial_call,
                               double seconds, hier_decision_t *concluded);

/* coll_hier_measure.c: before a trial's call (index trial_call), waits
 * until every rank of comm has arrived and then until one instant, the same
 * on every rank's clock (the clocks synchronized at the trial's first call);
 * *start: that instant on this rank's clock (mca_coll_hier_now). Collective
 * over comm. */
int mca_coll_hier_trial_start(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm, int trial_call,
                              double *start);

/* coll_hier_measure.c: a monotonic clock, in seconds (the probes' and auto's
 * measurements). */
double mca_coll_hier_now(void);
/* coll_hier_measure.c: HIER_PROBE_ROUND_TRIPS ping-pongs of one double with
 * peer on tag. The side that pings sends first; the other answers each ping
 * with its time on a reference clock (mca_coll_hier_now() + answer_offset).
 * The pinger returns the shortest of its round trips from first_counted on
 * and the offset of its clock to that reference clock which that trip
 * gives (the answer less the trip's midpoint); the answerer returns
 * INFINITY and 0. */
int mca_coll_hier_ping_pong(struct ompi_communicator_t *comm, int peer, int tag, bool pings, int first_counted,
                            double answer_offset, double *round_trip, double *offset);
/* coll_hier_measure.c: the one-way latency between every two nodes of comm
 * (node_of_rank: any integer per rank naming its node; job_node_of_rank:
 * the node's job-wide id), measured by node leaders on tag, for the pairs
 * no earlier communicator measured, and shared with every rank: *matrix (N
 * x N seconds, nodes numbered in the order of their lowest rank; the caller
 * frees it) and *node_count = N. Collective over comm. */
int mca_coll_hier_probe_latency(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                const int *node_of_rank, const int *job_node_of_rank, int tag, double **matrix,
                                int *node_count);
/* coll_hier_measure.c: the time one more small message costs with every rank
 * of comm busy, in seconds, between two ranks of one node (per_message[0])
 * and of two nodes of one cluster (per_message[1]), with the partners
 * module->topology names (it must exist); -1 for a class no two ranks of
 * comm form. Measured once per job: a later communicator takes what an
 * earlier one measured. Collective over comm, on tag. */
int mca_coll_hier_probe_messages(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm, int tag,
                                 double per_message[2]);

/* coll_hier_<op>.c: the collectives hier replaces */
int mca_coll_hier_alltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                           void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                           struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_hier_alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                            struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                            const int *rdispls, struct ompi_datatype_t *rdtype,
                            struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_hier_scatter(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                          void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
                          struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_hier_gather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                         void *rbuf, int rcount, struct ompi_datatype_t *rdtype, int root,
                         struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_hier_allgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                            void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                            struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_hier_allreduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                            struct ompi_op_t *op, struct ompi_communicator_t *comm,
                            mca_coll_base_module_t *module);
int mca_coll_hier_barrier(struct ompi_communicator_t *comm, mca_coll_base_module_t *module);

/* Their nonblocking forms, and their persistent forms (info is ignored). */
int mca_coll_hier_ialltoall(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                            struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                            ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_hier_alltoall_init(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                                int rcount, struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                                struct ompi_info_t *info, ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_hier_ialltoallv(const void *sbuf, const int *scounts, const int *sdispls,
                             struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts, const int *rdispls,
                             struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                             ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_hier_alltoallv_init(const void *sbuf, const int *scounts, const int *sdispls,
                                 struct ompi_datatype_t *sdtype, void *rbuf, const int *rcounts,
                                 const int *rdispls, struct ompi_datatype_t *rdtype,
                                 struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                 ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_hier_iscatter(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                           struct ompi_datatype_t *rdtype, int root, struct ompi_communicator_t *comm,
                           ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_hier_scatter_init(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                               int rcount, struct ompi_datatype_t *rdtype, int root,
                               struct ompi_communicator_t *comm, struct ompi_info_t *info,
                               ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_hier_igather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                          struct ompi_datatype_t *rdtype, int root, struct ompi_communicator_t *comm,
                          ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_hier_gather_init(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                              int rcount, struct ompi_datatype_t *rdtype, int root,
                              struct ompi_communicator_t *comm, struct ompi_info_t *info,
                              ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_hier_iallgather(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                             int rcount, struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                             ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_hier_allgather_init(const void *sbuf, int scount, struct ompi_datatype_t *sdtype, void *rbuf,
                                 int rcount, struct ompi_datatype_t *rdtype, struct ompi_communicator_t *comm,
                                 struct ompi_info_t *info, ompi_request_t **request,
                                 mca_coll_base_module_t *module);
int mca_coll_hier_iallreduce(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                             struct ompi_op_t *op, struct ompi_communicator_t *comm, ompi_request_t **request,
                             mca_coll_base_module_t *module);
int mca_coll_hier_allreduce_init(const void *sbuf, void *rbuf, int count, struct ompi_datatype_t *dtype,
                                 struct ompi_op_t *op, struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                 ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_hier_ibarrier(struct ompi_communicator_t *comm, ompi_request_t **request,
                           mca_coll_base_module_t *module);
int mca_coll_hier_barrier_init(struct ompi_communicator_t *comm, struct ompi_info_t *info,
                               ompi_request_t **request, mca_coll_base_module_t *module);

/* A collective call's arguments, as a request keeps them for its starts
 * (the ones a collective does not take are left zero). */
typedef struct mca_coll_hier_args_t {
    const void *sbuf;
    void *rbuf;
    int scount, rcount;     /* allreduce: its count in both */
    struct ompi_datatype_t *sdtype, *rdtype;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    int root;
    struct ompi_op_t *op;
} mca_coll_hier_args_t;

typedef struct mca_coll_hier_call_t mca_coll_hier_call_t;
/* Sets up one run of a call's schedule: call->buffers (TMP included) and
 * call->op from call->args; or begins a program of the core that lays out
 * the buffers itself, in call->program. A collective's prepare runs at every
 * start of a call, so that an in-place copy takes the data of that start. */
typedef int (*mca_coll_hier_prepare_fn_t)(mca_coll_hier_call_t *call);

/* Open MPI's own collective for a call hier does not take: the previous
 * module's, in the call's form (blocking: request NULL; nonblocking; or
 * persistent, with info), with the call's arguments. */
typedef int (*mca_coll_hier_previous_fn_t)(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                                           const mca_coll_hier_args_t *args, struct ompi_info_t *info,
                                           mca_coll_hier_form_t form, ompi_request_t **request);
/* A collective as its blocking way (mca_coll_hier_blocking) and its
 * requests (mca_coll_hier_request) need it: what differs between the
 * collectives. */
typedef struct mca_coll_hier_collective_t {
    hier_op_t op;
    int tag;  /* the blocking call's; a request reserves its own */
    mca_coll_hier_prepare_fn_t prepare;
    mca_coll_hier_previous_fn_t previous;
} mca_coll_hier_collective_t;

/* coll_hier_choose.c: the way of every blocking call. Gathers the
 * topology at the communicator's first call, asks the core which schedule
 * runs (printing the verbose line), times the call where auto's trial
 * measures it, and runs the schedule over the PML or hands the call to
 * collective->previous. unsupported is NULL, or why hier cannot take this
 * call whatever the algorithm (the same on every rank), which makes it
 * fall back. */
int mca_coll_hier_blocking(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm,
                           const mca_coll_hier_collective_t *collective, const mca_coll_hier_args_t *args,
                           size_t block_bytes, const char *unsupported);
/* The verbose line of one decision (and, at verbose 2, its predictions),
 * printed by rank 0 of the module's communicator: the first time each form
 * of each collective runs on it (verbose >= 1), and again whenever it
 * changes (verbose >= 2). */
void mca_coll_hier_report(mca_coll_hier_module_t *module, hier_op_t op, mca_coll_hier_form_t form,
                          const hier_decision_t *decision);
/* A call's name in verbose lines: alltoall, ialltoall, alltoall_init. */
void mca_coll_hier_call_name(hier_op_t op, mca_coll_hier_form_t form, char *name, size_t len);

/* One call of a schedule over the PML, blocking or from a request: what its
 * runs need between steps, the transport's context. */
struct mca_coll_hier_call_t {
    mca_coll_hier_module_t *module;
    struct ompi_communicator_t *comm;
    mca_coll_hier_work_t *work;
    const hier_schedule_t *schedule;
    const mca_coll_hier_args_t *args;
    int tag;
    int window;
    mca_coll_hier_layout_t buffers[3];   /* indexed by hier_buffer_t */
    struct ompi_op_t *op;                /* the reduction, or NULL */
    /* Alltoallv's program (its size and data passes), run instead of the
     * schedule alone; NULL for the other collectives. */
    hier_alltoallv_t *program;
    bool truncated;                      /* a variable copy did not fit */
    size_t piece;                        /* backbone pieces' bytes; 0: whole messages */
    hier_transport_t transport;
    hier_run_t run;
};

/* coll_hier_transport.c */
void mca_coll_hier_layout(mca_coll_hier_layout_t *layout, const void *base, size_t count,
                          struct ompi_datatype_t *dtype);
/* Block `block` of a layout, as a layout: for MPI_IN_PLACE, where one
 * buffer's block lives inside another buffer. */
void mca_coll_hier_layout_at(mca_coll_hier_layout_t *layout, const mca_coll_hier_layout_t *of,
                             size_t block);
/* Variable blocks: a user's (counts[b] elements of dtype at displs[b]), or
 * packed bytes (block b at [offsets[b], offsets[b + 1]) of base). */
void mca_coll_hier_layout_variable(mca_coll_hier_layout_t *layout, const void *base, const int *counts,
                                   const int *displs, struct ompi_datatype_t *dtype);
void mca_coll_hier_layout_packed(mca_coll_hier_layout_t *layout, void *base, const size_t *offsets);
/* Bytes of block b of a layout. */
size_t mca_coll_hier_block_bytes(const mca_coll_hier_layout_t *layout, size_t block);
/* Packs block b of a layout into dst (mca_coll_hier_block_bytes of it). */
int mca_coll_hier_pack_block(const mca_coll_hier_layout_t *layout, size_t block, void *dst);
/* Grows call-owned memory (*buffer of *size bytes) to at least bytes. */
int mca_coll_hier_grow(void **buffer, size_t *size, size_t bytes);
/* Lays out blocks of count dtype elements in call-owned memory (work->tmp
 * or work->in_place, grown when too small). */
int mca_coll_hier_scratch(void **buffer, size_t *size, size_t blocks, size_t count,
                          struct ompi_datatype_t *dtype, mca_coll_hier_layout_t *layout);
/* Lays out the schedule's TMP blocks like `like`, in call->work->tmp. */
int mca_coll_hier_tmp_like(mca_coll_hier_call_t *call, const mca_coll_hier_layout_t *like);
/* A call of schedule on tag with arguments args, run with work's memory;
 * nothing posted yet. */
void mca_coll_hier_call_init(mca_coll_hier_call_t *call, mca_coll_hier_module_t *module,
                             struct ompi_communicator_t *comm, mca_coll_hier_work_t *work,
                             const hier_schedule_t *schedule, const mca_coll_hier_args_t *args, int tag,
                             int window);
/* Starts a call: prepare, then its first run (nothing waits). Messages go
 * in pieces only where prepare left every layout of equal blocks. */
int mca_coll_hier_call_start(mca_coll_hier_call_t *call, mca_coll_hier_prepare_fn_t prepare);
/* Advances a started call, waiting (blocking) or not; *done once its last
 * run has finished. An error leaves no request behind. A copy into a
 * variable block that does not hold what arrives (mismatched counts, an
 * erroneous program) copies what fits, goes on, so that no peer waits in
 * vain, and makes the call end with MPI_ERR_TRUNCATE. */
int mca_coll_hier_call_progress(mca_coll_hier_call_t *call, bool blocking, bool *done);
/* A blocking collective's whole call, with the module's memory and window. */
int mca_coll_hier_call_blocking(mca_coll_hier_module_t *module, struct ompi_communicator_t *comm, int tag,
                                const hier_schedule_t *schedule, mca_coll_hier_prepare_fn_t prepare,
                                const mca_coll_hier_args_t *args);
void mca_coll_hier_work_release(mca_coll_hier_work_t *work);

/* coll_hier_choose.c: the schedule for a nonblocking or persistent call
 * (form), or NULL for the fallback, deciding without waiting for the other
 * ranks: NULL while the communicator's topology is not known (the first
 * such call starts gathering it; coll_hier_request.c asks only once the
 * gathering is over). *window: the rounds in flight to run it with. */
const hier_schedule_t *mca_coll_hier_choose_nonblocking(mca_coll_hier_module_t *module,
                                                        struct ompi_communicator_t *comm, hier_op_t op,
                                                        mca_coll_hier_form_t form, int root, size_t block_bytes,
                                                        const char *unsupported, int *window);


/* coll_hier_request.c: a nonblocking or persistent entry's whole call
 * (form; info: the persistent form's). With something to move, hier's
 * request: it runs a call of the schedule chosen with these arguments
 * (copied), advanced by Open MPI's progress engine; nonblocking: started
 * now and freed once complete; persistent: inactive until MPI_Start, each
 * start a new run. While the communicator's topology is being gathered,
 * the request decides once it is known, in the order the calls were made,
 * and starts then (or, decided fallback, starts the previous module's
 * nonblocking form from there). Otherwise the previous module's form. */
int mca_coll_hier_request(const mca_coll_hier_collective_t *collective, mca_coll_hier_module_t *module,
                          struct ompi_communicator_t *comm, mca_coll_hier_form_t form, bool nothing_to_move,
                          size_t block_bytes, const char *unsupported, const mca_coll_hier_args_t *args,
                          struct ompi_info_t *info, ompi_request_t **request);
/* coll_hier_request.c: decides, in order, the calls on module's
 * communicator that waited for its gathering, now over, and starts those
 * already started. */
void mca_coll_hier_requests_decide(mca_coll_hier_module_t *module);
/* Component open and close: the requests' free list and progress. */
void mca_coll_hier_requests_open(void);
void mca_coll_hier_requests_close(void);

END_C_DECLS

#endif /* MCA_COLL_HIER_H */
