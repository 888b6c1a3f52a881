/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/*
 * comm_memory: what one communicator costs in memory. Makes N communicators
 * (MPI_Comm_dup of MPI_COMM_WORLD, default 1,000), runs one alltoall of
 * 64 B blocks on each (so that every collective component sets up what a
 * communicator in use holds), keeps them all, and prints rank 0's growth
 * of resident set (/proc/self/statm) per communicator, in KiB. Run it
 * under Open MPI alone and under hier with the same ranks and compare.
 *
 *   mpirun -n 4 --mca coll tuned,libnbc,basic,inter,self ./comm_memory [N]
 *   mpirun -n 4 --mca coll hier,tuned,libnbc,basic,inter,self ./comm_memory [N]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define BLOCK_BYTES 64

/* This process's resident set in KiB. */
static double resident_kib(void)
{
    long size = 0, resident = 0;
    FILE *statm = fopen("/proc/self/statm", "r");

    if (NULL == statm || 2 != fscanf(statm, "%ld %ld", &size, &resident)) {
        resident = 0;
    }
    if (NULL != statm) {
        fclose(statm);
    }
    return (double) resident * (double) sysconf(_SC_PAGESIZE) / 1024.0;
}

/* One alltoall of BLOCK_BYTES per block on comm, so that it is in use. */
static void use(MPI_Comm comm, char *send, char *recv)
{
    MPI_Alltoall(send, BLOCK_BYTES, MPI_CHAR, recv, BLOCK_BYTES, MPI_CHAR, comm);
}

int main(int argc, char **argv)
{
    int rank, size, count = argc > 1 ? atoi(argv[1]) : 1000;
    MPI_Comm *comms;
    char *send, *recv;
    double before, after;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    comms = malloc(sizeof(*comms) * (size_t) (count > 0 ? count : 1));
    send = calloc((size_t) size, BLOCK_BYTES);
    recv = calloc((size_t) size, BLOCK_BYTES);
    if (count <= 0 || NULL == comms || NULL == send || NULL == recv) {
        fprintf(stderr, "comm_memory: usage: comm_memory [communicators > 0]\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* A first communicator outside the count: what is made once per process
     * (free lists, the settings) is not a communicator's. */
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
    use(comms[0], send, recv);
    MPI_Comm_free(&comms[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    before = resident_kib();
    for (int i = 0; i < count; ++i) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
        use(comms[i], send, recv);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    after = resident_kib();
    if (0 == rank) {
        printf("comm_memory: %d ranks, %d communicators, %d B alltoall each: rank 0's resident set grew "
               "%.1f KiB, %.2f KiB per communicator\n", size, count, BLOCK_BYTES, after - before,
               (after - before) / count);
    }
    for (int i = 0; i < count; ++i) {
        MPI_Comm_free(&comms[i]);
    }
    free(comms);
    free(send);
    free(recv);
    MPI_Finalize();
    return 0;
}
