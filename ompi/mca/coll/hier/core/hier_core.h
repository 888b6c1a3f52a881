/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * The C ABI of coll/hier's C++17 core.
 *
 * Open MPI's internal headers are not valid C++, so the component's C glue
 * reaches the core only through this header, and nothing in the core includes
 * an Open MPI header. The core knows ranks, nodes and blocks; the glue knows
 * communicators, buffers and datatypes and lends them to the core through a
 * transport table.
 */
#ifndef HIER_CORE_H
#define HIER_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The buffers a schedule names. Blocks are the unit of the collective (one
 * alltoall message, one scatter piece, one reduction vector); a region of
 * several consecutive blocks is contiguous in the user's layout, so it moves
 * as one message. */
typedef enum {
    HIER_BUF_SEND = 0,
    HIER_BUF_RECV = 1,
    HIER_BUF_TMP = 2
} hier_buffer_t;

/* The collectives the core builds schedules for, and what their buffers hold
 * (p = communicator size; "block" = the call's count of its datatype):
 *   alltoall   SEND p blocks, block j for rank j;  RECV p blocks, block j from rank j
 *   scatter    root: SEND p blocks, block j for rank j;  everyone: RECV 1 block
 *   gather     everyone: SEND 1 block;  root: RECV p blocks, block j from rank j
 *   allgather  SEND 1 block;  RECV p blocks, block j from rank j
 *   allreduce  SEND 1 block (the vector);  RECV 1 block: the reduction of all
 *   barrier    no data: blocks of 0 bytes; every rank leaves after all entered
 *   alltoallv  as alltoall, block j of SEND (RECV) being the call's own block
 *              for (from) rank j: blocks differ in size, and only regions of
 *              TMP may span several blocks (TMP is laid out packed) */
typedef enum {
    HIER_OP_ALLTOALL = 0,
    HIER_OP_SCATTER,
    HIER_OP_GATHER,
    HIER_OP_ALLGATHER,
    HIER_OP_ALLREDUCE,
    HIER_OP_BARRIER,
    HIER_OP_ALLTOALLV,
    HIER_OP_COUNT
} hier_op_t;

/* How a schedule moves blocks. Every function returns 0 on success, or an
 * error code of the transport's own that the executor hands back unchanged. */
typedef struct hier_transport {
    void *ctx;
    int (*post_send)(void *ctx, int peer, hier_buffer_t buf, size_t first, size_t count);
    int (*post_recv)(void *ctx, int peer, hier_buffer_t buf, size_t first, size_t count);
    /* Completes the oldest `count` posted sends and receives not completed
     * yet (operations complete in the order they were posted). With
     * blocking != 0 it returns once they are done; otherwise it returns at
     * once, and *done tells whether they are. */
    int (*complete)(void *ctx, size_t count, int blocking, int *done);
    int (*copy)(void *ctx, hier_buffer_t src, size_t src_first,
                hier_buffer_t dst, size_t dst_first, size_t count);
    /* dst = src (op) dst, block by block, with the call's reduction
     * operation (MPI_Reduce_local's order: src is the first operand). */
    int (*reduce)(void *ctx, hier_buffer_t src, size_t src_first,
                  hier_buffer_t dst, size_t dst_first, size_t count);
} hier_transport_t;

/* Algorithm ids: one registry table in the core, from which the glue derives
 * its MCA enums. Ids 0 and 1 are the two choices every collective has. */
enum { HIER_ALG_AUTO = 0, HIER_ALG_FALLBACK = 1 };

/* Number of ids for op (auto and fallback included), and each id's name and
 * one-line description. Returns NULL for an id out of range. */
int hier_algorithm_count(hier_op_t op);
const char *hier_algorithm_name(hier_op_t op, int id);
const char *hier_algorithm_description(hier_op_t op, int id);
const char *hier_op_name(hier_op_t op);

/* The forms of coll_hier_cluster_map: none (NULL or ""), node counts
 * ("3,6"), host patterns ("nancy:cvn[1-3];rennes:cvn[4-9]", anything else
 * with a ':'), the latency probe ("probe"), or a source the machine
 * describes itself by (core/cluster_source.h): "slurm[:LEVEL]",
 * "topology:PATH", "coordinates:PATH". */
typedef enum {
    HIER_CLUSTER_MAP_NONE = 0,
    HIER_CLUSTER_MAP_COUNTS,
    HIER_CLUSTER_MAP_HOSTS,
    HIER_CLUSTER_MAP_PROBE,
    HIER_CLUSTER_MAP_SLURM,
    HIER_CLUSTER_MAP_TOPOLOGY,
    HIER_CLUSTER_MAP_COORDINATES
} hier_cluster_map_kind_t;

/* The settings, parsed once per process from the MCA values (core/
 * settings.h): node map, cluster map, torus dimensions, link costs, cost
 * source (a cost file read once), hypercube embedding, rules file, trial
 * calls, backbone pieces. No text crosses to a communicator after this. */
typedef struct hier_settings hier_settings_t;
typedef struct hier_settings_input {
    /* coll_hier_<name> as Open MPI holds them (NULL: unset) */
    const char *node_map;
    const char *cluster_map;
    const char *torus_dims;
    const char *link_costs;
    const char *cost;
    const char *hypercube_embedding;
    const char *dynamic_rules;
    int auto_trial_calls;
    int backbone_piece;
    /* btl_tcp_eager_limit (0: unknown), for backbone_piece 0 */
    size_t tcp_eager_limit;
    /* MPI_COMM_WORLD's size: what the node map and torus dims describe */
    int world_size;
    /* 0: hier is not in use: only link_costs and backbone_piece are read
     * (their lines are said whether or not it is) */
    int in_use;
} hier_settings_input_t;

/* Parses every setting of input; NULL only when out of memory. A bad value
 * is one problem line and that parameter's consequence is taken. */
hier_settings_t *hier_settings_create(const hier_settings_input_t *input);
void hier_settings_destroy(hier_settings_t *settings);
/* The index-th problem, one line (no newline) naming the parameter, the
 * expected form and what is taken instead; NULL past the last.
 * *in_use_only: 1 for a line said only when hier is in use. */
const char *hier_settings_problem(const hier_settings_t *settings, int index, int *in_use_only);
/* Why every communicator falls back (the verbose line's reason: a node or
 * cluster map that does not parse or fit the job), or NULL. */
const char *hier_settings_unusable(const hier_settings_t *settings);
/* With a node map: 1 and *node, the node of world_rank; else 0. */
int hier_settings_node_map(const hier_settings_t *settings, int world_rank, int *node);
/* With a node map that writes sockets ("2+2,4"): 1 and *socket, the map's
 * socket of world_rank; else 0. */
int hier_settings_socket_map(const hier_settings_t *settings, int world_rank, int *socket);
/* What the glue gathers into host_names (hier_comm_input_t) for the
 * cluster map: nothing (0), every rank's host name (host patterns, a
 * topology.conf), or its "SLURM_TOPOLOGY_ADDR\nSLURM_TOPOLOGY_ADDR_PATTERN"
 * ("" without the first; the pattern may be missing). */
enum { HIER_GATHER_HOST_NAME = 1, HIER_GATHER_SLURM_ADDRESS = 2 };
int hier_settings_wants_host_names(const hier_settings_t *settings);
/* The probes a communicator of `ranks` ranks (on more than one node:
 * several_nodes) needs, with its alltoall's algorithm id: */
enum { HIER_PROBE_LATENCY = 1, HIER_PROBE_MESSAGES = 2 };
int hier_settings_probes(const hier_settings_t *settings, int alltoall_requested, int ranks, int several_nodes);
/* coll_hier_cost when it names a file ("file:PATH"), else NULL: such costs
 * may be read on some ranks and not on others, which must agree. */
const char *hier_settings_cost_file(const hier_settings_t *settings);
/* 1 when coll_hier_dynamic_rules names a file, else 0; *hash: the rules'
 * fingerprint (0 to 2^62 - 1) for ranks to check they read the same, -1
 * when they could not be read here. */
int hier_settings_rules(const hier_settings_t *settings, long long *hash);
/* coll_hier_backbone_piece in bytes (0: whole messages). */
size_t hier_settings_backbone_piece(const hier_settings_t *settings);

/* Host names travel in fields of this many bytes, NUL-padded; a name that
 * fills its field without a NUL was longer, and is reported. */
#define HIER_HOST_NAME_WIDTH 128

/* What the probes measured, kept for the job (job_costs.cc), so that a
 * communicator over nodes already probed probes nothing. Nodes are named by
 * job-wide ids (the same on every communicator). hier_job_latency: the
 * one-way latency in seconds between two nodes, 0 if not measured.
 * hier_job_latencies_store: keeps latency[a * n + b] for nodes[a] and
 * nodes[b] (an n x n matrix, as the probe agreed it), ignoring entries that
 * are not positive and the diagonal. hier_job_message_cost: the cost per
 * message within a node (link_class 0) or between nodes (1), -1 if not
 * measured; its store ignores a negative cost. Thread-safe. */
double hier_job_latency(int node_a, int node_b);
void hier_job_latencies_store(int n, const int *nodes, const double *latency);
double hier_job_message_cost(int link_class);
void hier_job_message_cost_store(int link_class, double seconds);

/* The 1-factor pairing of n parties (the pairwise alltoall's): in round r
 * of hier_one_factor_rounds(n), party i meets hier_one_factor_partner(i, r,
 * n); meeting itself means idle. */
int hier_one_factor_rounds(int n);
int hier_one_factor_partner(int i, int round, int n);

/* Per-communicator state (core/communicator.h): the topology, auto's
 * decisions, trials and the schedule cache, built from the parsed settings
 * and what the glue gathered about the communicator; NULL or 0 means "not
 * known". */
typedef struct hier_comm_input {
    /* The settings (NULL: every setting's default). Not copied: they must
     * outlive the communicator. */
    const hier_settings_t *settings;
    int size;
    int rank;
    /* node_of_rank[i]: any integer naming the node of rank i (equal values =
     * same node); with a node map, the map's node. Required. */
    const int *node_of_rank;
    /* socket_of_rank[i]: any integer naming rank i's socket on its node
     * (equal values on one node = same socket); a negative value anywhere
     * (a rank not bound) or NULL: no socket level, each node one socket. */
    const int *socket_of_rank;
    /* Clusters by rank (any integer naming rank i's cluster), overriding the
     * settings' cluster map; NULL: from the settings. */
    const int *cluster_of_rank;
    /* host_names[i * HIER_HOST_NAME_WIDTH ...]: the name of rank i's host
     * (or its Slurm address: hier_settings_wants_host_names) for a cluster
     * map that needs it; NULL otherwise. job_wide != 0: the
     * communicator holds every process of the job, so a host pattern that
     * matches none of its hosts is an error. */
    const char *host_names;
    int job_wide;
    /* node_latency[a * N + b]: one-way latency in seconds between nodes a
     * and b, N = the number of distinct nodes, numbered in the order of their
     * lowest rank (the latency probe's result); NULL when not measured. */
    const double *node_latency;
    /* The communicator's own torus (a Cartesian one periodic in every
     * dimension): the ranks, in row-major order, form a torus of sizes
     * torus_dims[0..torus_ndims), whose product must be size. 0: none, and
     * coll_hier_torus_dims applies where it covers the communicator. */
    int torus_ndims;
    const int *torus_dims;
    /* world_rank[i]: rank i's rank in MPI_COMM_WORLD (NULL: the identity)
     * among world_size ranks (0: size): what a cost file indexes. */
    const int *world_rank;
    int world_size;
    /* The communicator's coll_hier_window (settable through MPI_T: fixed
     * when it was created). */
    int window;
    /* Every rank read the same rules file (the glue agreed): use it. */
    int rules_agreed;
    /* The agreement the glue lends the communicator (auto's shared model,
     * a trial's times): values[i] becomes their maximum over its ranks (one
     * MPI_Allreduce, MAX, through the previous module: never hier's own).
     * Returns 0 or an error code. Collective. NULL: none. */
    int (*agree_max)(void *ctx, double *values, int count);
    void *agree_ctx;
    /* The link-cost probes the glue lends the communicator, which runs them
     * at the first decision that weighs link costs (the alltoall's auto with
     * coll_hier_link_costs probe), never before: node_latency (N x N, as
     * above; NULL when the input already had it) and message_cost[0], [1],
     * the time one more small message costs with every rank busy, between
     * two ranks of one node and of two nodes of one cluster (-1: a class not
     * measured). Returns 0 or an error code, the same on every rank.
     * Collective. NULL: none, and probed classes stay unknown. */
    int (*probe_links)(void *ctx, double *node_latency, double message_cost[2]);
    void *probe_ctx;
} hier_comm_input_t;

/* The embeddings coll_hier_hypercube_embedding may name: ids 0 (auto) to
 * hier_embedding_count() - 1. NULL for an id out of range. */
int hier_embedding_count(void);
const char *hier_embedding_name(int id);

typedef struct hier_comm hier_comm_t;
typedef struct hier_schedule hier_schedule_t;

/* Why hier_comm_create failed: the verbose line's reason ("invalid
 * coll_hier_cost") and whether its line is a problem of the settings,
 * already said when they were parsed. */
typedef struct hier_comm_failure {
    const char *reason;
    int reported;
} hier_comm_failure_t;

/* Returns NULL when a setting does not fit the communicator (a cluster map,
 * a torus, a cost file) or is invalid (cost source, embedding), and writes
 * one line (no newline) to err and, when failure is not NULL, fills it;
 * NULL with err empty means out of memory. Made, it may still write a line
 * to err, a notice to say once (a cluster source that found nothing). */
hier_comm_t *hier_comm_create(const hier_comm_input_t *input, char *err, size_t errlen,
                              hier_comm_failure_t *failure);
void hier_comm_destroy(hier_comm_t *comm);
int hier_comm_node_count(const hier_comm_t *comm);
int hier_comm_cluster_count(const hier_comm_t *comm);
/* The node of a rank of the communicator, 0 .. node_count - 1, nodes
 * numbered in the order of their lowest rank. */
int hier_comm_node_of(const hier_comm_t *comm, int rank);
/* The cluster of a rank of the communicator, 0 .. cluster_count - 1. */
int hier_comm_cluster_of(const hier_comm_t *comm, int rank);
/* The lowest rank of a node of the communicator (numbered as
 * hier_comm_node_of numbers them): the node's leader in the probes and the
 * trials' clock. */
int hier_comm_node_leader(const hier_comm_t *comm, int node);
/* The ranks rank exchanges with in the message probe, of one link class
 * (0: on its own node, 1: on another node of its cluster): those up to reach
 * away in rank order, either way round, into partners (at most 2 * reach);
 * returns how many, and in *left_out how many of the class it passed over
 * in other clusters. */
int hier_comm_probe_partners(const hier_comm_t *comm, int rank, int link_class, int reach, int *partners,
                             int *left_out);
/* The same numbering from the gathered nodes alone, before a communicator
 * exists: leaders[n], the lowest rank of node n, nodes numbered in the order
 * of their lowest rank; returns the number of nodes. leaders holds size. */
int hier_node_leaders(int size, const int *node_of_rank, int *leaders);

/* Why a decision is what it is. Its text is rendered only where it is
 * printed (hier_comm_explain). */
typedef enum {
    HIER_REASON_RUNS = 0,   /* the algorithm runs */
    HIER_REASON_RULE,       /* it runs as a rule of coll_hier_dynamic_rules names it */
    HIER_REASON_FALLBACK,   /* the fallback runs, for `phrase` */
    HIER_REASON_UNFIT       /* the requested algorithm `unfit` does not apply, for `phrase` */
} hier_reason_t;

/* The answer to one call (hier_comm_decide): a small value. */
typedef struct hier_decision {
    const hier_schedule_t *schedule;  /* the cached schedule to run; NULL: the fallback */
    int chosen;      /* its algorithm id; HIER_ALG_FALLBACK without a schedule */
    int window;      /* rounds in flight: the communicator's, or a rule's */
    int trial_call;  /* this call's index in auto's trial, or -1 */
    hier_reason_t reason;
    int unfit;       /* HIER_REASON_UNFIT: the id that does not apply */
    /* the fallback's reason: a constant, or the caller's unsupported, or
     * text comm keeps until its next decision; NULL when an algorithm runs */
    const char *phrase;
} hier_decision_t;

/* Chooses the algorithm for one call. requested is an id of the registry
 * (auto, fallback or an algorithm); unsupported is NULL, or why hier
 * cannot take this call whatever the algorithm (a non-commutative
 * operation), which makes it fall back. The same arguments give the same
 * answer on every rank of the communicator.
 * For auto, a rule of coll_hier_dynamic_rules that covers the call (its
 * communicator's size and the call's message size, as Open MPI's tuned
 * measures it: block_bytes times the size for alltoall, allgather, scatter
 * and gather, block_bytes for allreduce, 0 for alltoallv and barrier) and
 * names an algorithm decides it; otherwise auto decides once per size class
 * (block bytes in [2^k, 2^(k+1))) with the time model, and keeps the
 * decision for the classes used only.
 * Where the model cannot tell, auto measures: the first calls of the class
 * are a trial, and out->trial_call is this call's index in it (see
 * hier_comm_trial_record).
 * nonblocking != 0: the call (a nonblocking or persistent collective's
 * start) may not communicate: auto decides a class no call has decided by
 * the model alone, never shares its work out nor measures, and a class
 * being measured takes the model's choice.
 * verbose >= 2: what auto's model compared, at the call that decides a
 * class, is kept for hier_comm_predictions. */
void hier_comm_decide(hier_comm_t *comm, hier_op_t op, int requested, int root, size_t block_bytes,
                      const char *unsupported, int nonblocking, int verbose, hier_decision_t *out);
/* The texts of a decision of comm for op, for the verbose line: where, the
 * communicator ("size 10, 4 nodes, 2 clusters, torus 4x4"); reason, why it
 * falls back, or what the algorithm tells about itself with the window and
 * backbone pieces ("" if nothing). Either may be NULL. */
void hier_comm_explain(const hier_comm_t *comm, hier_op_t op, const hier_decision_t *decision, char *where,
                       size_t where_len, char *reason, size_t reason_len);
/* What auto's model compared at comm's last decision that decided a class
 * at verbose 2, or what its last trial measured; "" otherwise. Valid until
 * comm's next decision. */
const char *hier_comm_predictions(const hier_comm_t *comm);
/* A trial's call (index trial_call of hier_comm_decide) took seconds on this
 * rank. Returns 1 when it was the last call of the trial so far: every rank
 * then calls hier_comm_trial_conclude; else 0. */
int hier_comm_trial_record(hier_comm_t *comm, hier_op_t op, size_t block_bytes, int trial_call, double seconds);
/* Collective: agrees on the calls' times (their maximum over the ranks,
 * through the communicator's agree_max) and decides. Returns
 * HIER_TRIAL_EXTENDED when the trial takes another round of calls (its
 * ratios cannot tell the rows from Open MPI's yet; hier_comm_predictions
 * says why), HIER_TRIAL_CONCLUDED with the class's choice in out
 * (hier_comm_predictions: what was measured), or HIER_TRIAL_UNAGREED when
 * the agreement failed (the class then falls back, in out). */
enum { HIER_TRIAL_UNAGREED = -1, HIER_TRIAL_EXTENDED = 0, HIER_TRIAL_CONCLUDED = 1 };
int hier_comm_trial_conclude(hier_comm_t *comm, hier_op_t op, size_t block_bytes, hier_decision_t *out);

/* Blocks of TMP the schedule needs (the glue allocates them). */
size_t hier_schedule_tmp_blocks(const hier_schedule_t *schedule);

/* Runs this rank's schedule to completion over the transport, with at most
 * `window` rounds in flight (1: each round completes before the next is
 * posted). Returns 0 or the first error the transport reported. */
int hier_execute(const hier_schedule_t *schedule, const hier_transport_t *transport, int window);

/* One schedule run a step at a time, for a nonblocking request: its state
 * lives in the caller's memory, so a run allocates nothing; the schedule
 * and the transport must outlive it. */
typedef struct hier_run {
    const hier_schedule_t *schedule;
    const hier_transport_t *transport;
    int window;
    size_t posted, finished;   /* rounds posted and finished so far */
} hier_run_t;
/* Sets up a run from its first round; posts nothing yet. */
void hier_run_begin(hier_run_t *run, const hier_schedule_t *schedule, const hier_transport_t *transport,
                    int window);
/* Posts what may be posted and finishes the rounds whose messages have all
 * completed, without waiting; *done: 1 once the last round has finished.
 * Returns 0 or the first error the transport reported. */
int hier_run_advance(hier_run_t *run, int *done);

/* Alltoallv's program (core/alltoallv_program.h): a first pass of the
 * schedule over each block's size, when the schedule forwards blocks
 * through TMP, then TMP laid out packed from the sizes it received, then the
 * pass over the data. The caller runs it with its transport and lends it a
 * host, which lays the buffers out for each pass. */
typedef struct hier_alltoallv_host {
    void *ctx;
    /* Bytes of block `block` of the call's SEND. */
    size_t (*send_bytes)(void *ctx, size_t block);
    /* The size pass: SEND, RECV and TMP become blocks of one uint64_t each
     * at send (p), recv (p) and tmp (hier_schedule_tmp_blocks). */
    int (*lay_out_sizes)(void *ctx, uint64_t *send, uint64_t *recv, uint64_t *tmp);
    /* The data pass: SEND and RECV become the call's blocks, TMP packed
     * bytes the host provides, block b at [tmp_offsets[b], tmp_offsets[b +
     * 1]) (tmp_offsets valid until the program's next begin). */
    int (*lay_out_data)(void *ctx, const size_t *tmp_offsets, size_t tmp_blocks);
    /* What the program returns when its own memory cannot grow. */
    int out_of_memory;
} hier_alltoallv_host_t;

/* The program's memory, kept by the caller from call to call (one per
 * call in flight); NULL when out of memory. Destroying NULL does nothing. */
typedef struct hier_alltoallv hier_alltoallv_t;
hier_alltoallv_t *hier_alltoallv_create(void);
void hier_alltoallv_destroy(hier_alltoallv_t *program);
/* Starts a call of schedule on `size` ranks over transport with at most
 * `window` rounds in flight: lays out its first pass, posts nothing.
 * transport and host are copied. Returns 0 or the host's error. */
int hier_alltoallv_begin(hier_alltoallv_t *program, const hier_schedule_t *schedule, int size,
                         const hier_transport_t *transport, const hier_alltoallv_host_t *host, int window);
/* Advances the call, waiting (blocking != 0) until it is done or not;
 * *done: 1 once its last pass has finished. Returns 0 or the first error of
 * the transport or the host. */
int hier_alltoallv_advance(hier_alltoallv_t *program, int blocking, int *done);

#ifdef __cplusplus
}
#endif

#endif /* HIER_CORE_H */
