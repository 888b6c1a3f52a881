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

/* Parses a node map, "4,3,2,1": node sizes for consecutive ranks. Fills
 * node_of_rank[0..size) and returns 0; on error writes one line (no newline)
 * to err and returns -1. */
int hier_parse_node_map(const char *text, int size, int *node_of_rank,
                        char *err, size_t errlen);

/* Parses a cluster map of counts, "3,6": cluster sizes in nodes, for
 * node_count nodes numbered in order. Fills cluster_of_node[0..node_count)
 * and returns 0; on error writes one line (no newline) to err and returns -1. */
int hier_parse_cluster_map(const char *text, int node_count, int *cluster_of_node,
                           char *err, size_t errlen);

/* Parses coll_hier_torus_dims, "8x8" or "4x8x8": dimension sizes joined by
 * x, whose product must be `ranks`. Writes up to max_dims sizes to dims and
 * returns how many there are; on error (or more than max_dims) writes one
 * line (no newline) to err and returns -1. */
int hier_parse_torus_dims(const char *text, int ranks, int *dims, int max_dims,
                          char *err, size_t errlen);

/* Checks coll_hier_link_costs: "" (unknown), or comma-separated
 * CLASS=LATENCY:BANDWIDTH[:OVERHEAD] with CLASS node, network or backbone,
 * e.g. "node=1us:40Gbit/s,network=30us:200Mbit/s,backbone=5ms:100Mbit/s".
 * Returns 0, or -1 with one line (no newline) in err naming the parameter
 * and the expected form. */
int hier_check_link_costs(const char *text, char *err, size_t errlen);
/* 1 when coll_hier_link_costs parses and asks for the probes ("probe"
 * among its entries), else 0. */
int hier_link_costs_want_probe(const char *text);
/* 1 when auto decides an alltoall on ranks over nodes with its time model
 * (more than one node, at most 128 ranks), else 0: where measured link
 * costs are of use. */
int hier_alltoall_modelled(int ranks, int nodes);
/* The forms of coll_hier_cluster_map: none (NULL or ""), node counts
 * ("3,6"), host patterns ("nancy:cvn[1-3];rennes:cvn[4-9]", anything with a
 * ':'), or the latency probe ("probe"). */
typedef enum {
    HIER_CLUSTER_MAP_NONE = 0,
    HIER_CLUSTER_MAP_COUNTS,
    HIER_CLUSTER_MAP_HOSTS,
    HIER_CLUSTER_MAP_PROBE
} hier_cluster_map_kind_t;
hier_cluster_map_kind_t hier_cluster_map_kind(const char *text);

/* Checks what of a cluster map does not depend on the communicator: the
 * syntax of host patterns. Returns 0, or -1 and one line (no newline) in err. */
int hier_check_cluster_map(const char *text, char *err, size_t errlen);

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

typedef struct hier_rules hier_rules_t;

/* Per-communicator state: the topology and the schedule cache, built from
 * what the glue gathered about the communicator. Each feature of the machine
 * is one group of fields; NULL or 0 means "not known". */
typedef struct hier_comm_input {
    int size;
    int rank;
    /* node_of_rank[i]: any integer naming the node of rank i (equal values =
     * same node). Required. */
    const int *node_of_rank;
    /* Clusters: from cluster_of_rank (any integer naming rank i's cluster)
     * when it is not NULL, else from cluster_map (NULL or "" for one
     * cluster), coll_hier_cluster_map: counts apply to this communicator's
     * nodes in the order of their lowest rank, host patterns to host_names. */
    const int *cluster_of_rank;
    const char *cluster_map;
    /* How auto predicts time: the executor's window (coll_hier_window) and
     * the link costs (coll_hier_link_costs, checked by
     * hier_check_link_costs; NULL, "" or a value that does not parse:
     * unknown). */
    int window;
    const char *link_costs;
    /* coll_hier_auto_trial_calls: where the model cannot tell its best row
     * from Open MPI's own, the calls of each that auto measures before it
     * decides (0: the model decides alone). */
    int auto_trial_calls;
    /* host_names[i * HIER_HOST_NAME_WIDTH ...]: the name of rank i's host,
     * for a cluster map of host patterns; NULL otherwise. job_wide != 0: the
     * communicator holds every process of the job, so a host pattern that
     * matches none of its hosts is an error. */
    const char *host_names;
    int job_wide;
    /* node_latency[a * N + b]: one-way latency in seconds between nodes a
     * and b, N = the number of distinct nodes, numbered in the order of their
     * lowest rank (the latency probe's result); NULL when not measured.
     * coll_hier_cluster_map "probe" splits the nodes at its largest gap;
     * coll_hier_link_costs "probe" takes the network's and the backbone's
     * latencies from it; coll_hier_cost "probe" takes it as the cost between
     * nodes. */
    const double *node_latency;
    /* Torus: the ranks, in row-major order (the last dimension varying
     * fastest, as MPI_Cart_coords numbers them), form a torus of sizes
     * torus_dims[0..torus_ndims), whose product must be size. torus_ndims 0:
     * no torus. */
    int torus_ndims;
    const int *torus_dims;
    /* Costs between processes (coll_hier_cost): NULL, "" or "locality",
     * "probe" (needs node_latency) or "file:PATH". A file indexes
     * MPI_COMM_WORLD: world_rank[i] is rank i's rank there (NULL: the
     * identity) among world_size ranks (0: size); with a node map,
     * world_node[i] is rank i's node among the job's world_node_count nodes
     * (NULL: nodes are this communicator's, numbered as above). */
    const char *cost;
    const int *world_rank;
    int world_size;
    const int *world_node;
    int world_node_count;
    /* coll_hier_hypercube_embedding: a name of hier_embedding_name, NULL or
     * "" for auto. */
    const char *hypercube_embedding;
    /* coll_hier_dynamic_rules, read alike on every rank (hier_rules_load),
     * or NULL. Not copied: it must outlive the communicator. */
    const hier_rules_t *rules;
} hier_comm_input_t;

/* coll_hier_dynamic_rules (docs/rules-file.md): rules that override auto
 * per collective, communicator size and message size. hier_rules_load reads
 * and parses the file at path: the rules, or NULL with one line (no newline)
 * in err naming the parameter, the line and what was expected.
 * hier_rules_hash: a fingerprint of the rules (0 to 2^62 - 1), for ranks to
 * check they read the same. */
hier_rules_t *hier_rules_load(const char *path, char *err, size_t errlen);
void hier_rules_free(hier_rules_t *rules);
unsigned long long hier_rules_hash(const hier_rules_t *rules);

/* The embeddings coll_hier_hypercube_embedding may name: ids 0 (auto) to
 * hier_embedding_count() - 1. NULL for an id out of range. */
int hier_embedding_count(void);
const char *hier_embedding_name(int id);
const char *hier_embedding_description(int id);

/* What is wrong with coll_hier_cost and coll_hier_hypercube_embedding
 * whatever the communicator (a value of the wrong form, a cost file that
 * cannot be read or parsed): returns -1 and writes one line (no newline) to
 * err, or returns 0. The glue asks it when hier_comm_create failed, to
 * report a job-wide mistake once for the job rather than per communicator. */
int hier_check_settings(const char *cost, const char *embedding, char *err, size_t errlen);

/* Returns NULL on a map that does not parse or fit (or a cost source or
 * embedding that does not), and writes one line (no newline) to err; NULL
 * with err empty means out of memory. */
typedef struct hier_comm hier_comm_t;
typedef struct hier_schedule hier_schedule_t;

hier_comm_t *hier_comm_create(const hier_comm_input_t *input, char *err, size_t errlen);
void hier_comm_destroy(hier_comm_t *comm);
int hier_comm_node_count(const hier_comm_t *comm);
int hier_comm_cluster_count(const hier_comm_t *comm);
/* The node of a rank of the communicator, 0 .. node_count - 1, nodes
 * numbered in the order of their lowest rank. */
int hier_comm_node_of(const hier_comm_t *comm, int rank);
/* The cluster of a rank of the communicator, 0 .. cluster_count - 1. */
int hier_comm_cluster_of(const hier_comm_t *comm, int rank);
/* The message probe's result: message_cost[0], [1], the time one more small
 * message costs, in seconds, between two ranks of one node and of two nodes
 * of one cluster, measured with every rank busy; -1 for a class not
 * measured. Where coll_hier_link_costs asks for the probe, they become the
 * node's and the network's (and the backbone's) per-message overhead. Call
 * before the communicator's first hier_comm_select. */
void hier_comm_apply_message_cost(hier_comm_t *comm, const double message_cost[2]);
/* The torus's dimension sizes as "4x4" (empty without a torus), cut to len. */
void hier_comm_torus(const hier_comm_t *comm, char *out, size_t len);

/* Chooses the algorithm for one call. requested is an id of the registry
 * (auto, fallback or an algorithm). Returns the cached schedule of the chosen
 * algorithm, sets *chosen to its id and writes what the algorithm tells
 * about itself, if anything, to reason ("" if nothing); or returns NULL,
 * sets *chosen to HIER_ALG_FALLBACK and writes the reason (one phrase) to
 * reason. A reasonlen or predictionslen of 0: that text is not built (no
 * verbose line will print it). *window: the window to run it with (the
 * communicator's, or a rule's). The same arguments give the same answer on every rank of the
 * communicator.
 * For auto, a rule of coll_hier_dynamic_rules that covers the call (its
 * communicator's size and the call's message size, as Open MPI's tuned
 * measures it: block_bytes times the size for alltoall, allgather, scatter
 * and gather, block_bytes for allreduce, 0 for alltoallv and barrier) and
 * names an algorithm decides it; otherwise
 * auto decides once per size class (block bytes in [2^k, 2^(k+1))) with the
 * time model; the call that decides writes one line to predictions (what
 * was compared, what was picked), every other call writes "".
 * Where the model cannot tell, auto measures: the first calls of the class
 * are a trial, and *trial_call is this call's index in it (else -1). The
 * glue then times the call, stores its seconds at that index of
 * hier_comm_trial_seconds, and after the last call of the trial (index
 * calls - 1) reduces them to their maximum over the ranks and calls
 * hier_comm_trial_conclude, which may extend the trial. */
const hier_schedule_t *hier_comm_select(hier_comm_t *comm, hier_op_t op,
                                        int requested, int root,
                                        size_t block_bytes, int *chosen, int *window,
                                        int *trial_call,
                                        char *reason, size_t reasonlen,
                                        char *predictions, size_t predictionslen);
/* block_bytes' size class (k for [2^k, 2^(k+1)), 0 for 0 and 1 byte), one
 * of 64: what auto decides per. */
int hier_size_class(size_t block_bytes);
/* 1 when every later call of block_bytes' size class falls back, as
 * hier_comm_select just said for one (requested as it was given): auto has
 * decided, and measures no more, or the requested algorithm does not apply;
 * else 0. The glue then sends those calls to the fallback without asking. */
int hier_comm_fallback_settled(hier_comm_t *comm, hier_op_t op, int requested, size_t block_bytes);
/* The seconds of each call of the trial running for block_bytes' size
 * class: an array of *calls, owned by comm. */
double *hier_comm_trial_seconds(hier_comm_t *comm, hier_op_t op, size_t block_bytes, int *calls);
/* After the trial's last call so far: returns 0 when the trial takes another
 * round of calls (its ratios cannot tell the rows from Open MPI's yet; *calls of
 * hier_comm_trial_seconds grows, the times so far kept), with one line
 * saying why; else 1, and ends the trial: the class's choice from the
 * seconds, as hier_comm_select would report it (*chosen, reason), and one
 * line saying what was measured. */
int hier_comm_trial_conclude(hier_comm_t *comm, hier_op_t op, size_t block_bytes, int *chosen,
                             char *reason, size_t reasonlen, char *line, size_t linelen);

/* Blocks of TMP the schedule needs (the glue allocates them). */
size_t hier_schedule_tmp_blocks(const hier_schedule_t *schedule);

/* Runs this rank's schedule to completion over the transport, with at most
 * `window` rounds in flight (1: each round completes before the next is
 * posted). Returns 0 or the first error the transport reported. */
int hier_execute(const hier_schedule_t *schedule, const hier_transport_t *transport, int window);

#ifdef __cplusplus
}
#endif

#endif /* HIER_CORE_H */
